import { InvalidArgumentError, type Command } from 'commander';
import { printResult } from '../output.js';
import { readJsonFile, withContainer } from '../command-context.js';

/** `LABEL=VALUE` pairs of `vocabulary set` (an empty value removes the label's override). */
function labelPair(value: string, previous: Array<[string, string]> = []): Array<[string, string]> {
  const at = value.lastIndexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`must be LABEL=VALUE, got "${value}"`);
  return [...previous, [value.slice(0, at).trim(), value.slice(at + 1).trim()]];
}

/** `vitrine vocabulary show|set`: how a store's labels resolve, and its overrides. */
export function registerVocabularyCommands(program: Command): void {
  const vocabulary = program
    .command('vocabulary')
    .description("how a store's category, department and colour labels resolve");
  vocabulary
    .command('show')
    .description('list every category, department and colour label with its product count, what it resolved to and how')
    .requiredOption('--store <uuid>', 'store uuid')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; json?: boolean }) => {
      const report = await withContainer((c) => c.vocabulary.report(options.store));
      const lines = [
        `categories (${report.categories.length}):`,
        ...report.categories.map((c) => {
          const placed =
            c.how === 'per product'
              ? JSON.stringify(c.groups ?? {})
              : `${c.group ?? 'unplaced'}${c.concept ? ` / ${c.concept}` : ''}`;
          return `  ${c.label || '(none)'}  ${c.products}  -> ${placed}  (${c.how})`;
        }),
        `departments (${report.departments.length}):`,
        ...report.departments.map((d) => `  ${d.label}  ${d.products}  -> ${d.audience ?? 'own audience'}  (${d.how})`),
        `colours (${report.colours.length}):`,
        ...report.colours.map(
          (c) =>
            `  ${c.label}  ${c.products}  -> ${c.family ? `${c.lightness} ${c.family}${c.neutral ? ', neutral' : ''}` : 'unplaced'}  (${c.how})`,
        ),
      ];
      printResult(!!options.json, report, lines.join('\n'));
    });
  vocabulary
    .command('set')
    .description(
      'change a store\'s overrides: --category "Sleep Bag=NIGHTWEAR", --department "Divided=women", --colour "Mole=dark brown" (repeatable; LABEL= removes one), or replace them all with --file',
    )
    .requiredOption('--store <uuid>', 'store uuid')
    .option('--category <label=group>', 'category label -> complement group (or UNPLACED)', labelPair, [])
    .option(
      '--department <label=audience>',
      'department label -> women, men, girls, boys, kids, baby or unisex',
      labelPair,
      [],
    )
    .option(
      '--colour <label=family>',
      'colour label -> colour family, optionally after light/medium/dark',
      labelPair,
      [],
    )
    .option(
      '--file <path>',
      'a JSON file {"categories": {…}, "departments": {…}, "colours": {…}} that replaces every override',
    )
    .option('--json', 'print one JSON object')
    .action(
      async (options: {
        store: string;
        category: Array<[string, string]>;
        department: Array<[string, string]>;
        colour: Array<[string, string]>;
        file?: string;
        json?: boolean;
      }) => {
        const fromFile = options.file ? readJsonFile(options.file, 'vocabulary') : undefined;
        const report = await withContainer(async (c) => {
          const current = (fromFile ?? (await c.vocabulary.overrides(options.store))) as Record<
            string,
            Record<string, string>
          >;
          const merged: Record<string, Record<string, string>> = { ...current };
          for (const [section, pairs] of [
            ['categories', options.category],
            ['departments', options.department],
            ['colours', options.colour],
          ] as const) {
            const next = { ...(merged[section] ?? {}) };
            for (const [label, value] of pairs) {
              for (const existing of Object.keys(next))
                if (existing.trim().toLowerCase() === label.toLowerCase()) delete next[existing];
              if (value !== '') next[label] = value;
            }
            merged[section] = next;
          }
          return c.vocabulary.setOverrides(options.store, merged);
        });
        const o = report.overrides;
        printResult(
          !!options.json,
          { store_uuid: report.store_uuid, overrides: o },
          `vocabulary overrides of store ${options.store}: ${Object.keys(o.categories).length} categories, ${Object.keys(o.departments).length} departments, ${Object.keys(o.colours).length} colours`,
        );
      },
    );
}
