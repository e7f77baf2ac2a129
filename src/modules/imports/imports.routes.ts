import fs from 'node:fs';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { ok } from '../../http/envelope.js';
import { FilePart } from '../../http/openapi.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { InvalidRequestError } from '../../errors.js';
import { parseFlag, parseImportMode, type ImportsService } from './imports.service.js';
import { parseEncoding } from '../../catalog/import-formats.js';
import { MAX_IMPORT_BYTES } from '../../catalog/limits.js';

const tags = ['admin'];
const ImportOption = (description: string) => Type.Optional(Type.String({ description }));

const ImportStatus = component(
  'ImportJob',
  Type.Object({
    import_id: Type.String(),
    store_uuid: Type.String(),
    status: Type.String({ description: 'queued, running, done or failed' }),
    format: Type.String(),
    source: Type.String(),
    progress: Type.Object({ rows: Type.Integer() }),
    summary: Type.Union([
      Type.Object({
        rows: Type.Integer(),
        inserted: Type.Integer(),
        updated: Type.Integer(),
        unchanged: Type.Integer({ description: 'rows identical to what is stored: nothing written' }),
        failed: Type.Integer(),
        failures: Type.Record(Type.String(), Type.Integer(), { description: 'rejected rows by reason' }),
        statuses: Type.Record(Type.String(), Type.Integer(), {
          description: 'the imported products by the status they ended in',
        }),
        problems: Type.Record(Type.String(), Type.Integer(), {
          description: 'quality-check reasons of the imported products, most frequent first',
        }),
        hint: Type.Union([Type.String(), Type.Null()], {
          description: 'what to fix, when products are in problem or no row was accepted',
        }),
        suggested_mapping: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
          description:
            'when no row was accepted and the columns look like catalog fields under other names: the `fields` of a mapping profile that would read them (file column → canonical field)',
        }),
        mode: Type.String({ description: 'replace or merge' }),
        dry_run: Type.Boolean(),
        seconds: Type.Number(),
      }),
      Type.Null(),
    ]),
    error: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String(),
    started_at: Type.Union([Type.String(), Type.Null()]),
    finished_at: Type.Union([Type.String(), Type.Null()]),
  }),
);

/** Catalog imports through the operator API: upload (multipart) or URL, processed in the background. */
export const importsAdminRoutes: FastifyPluginAsyncTypebox<{ imports: ImportsService }> = async (app, { imports }) => {
  await app.register(fastifyMultipart, { limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 10 } });

  app.post(
    '/stores/:store_uuid/imports',
    {
      config: {
        documentedBody: {
          'multipart/form-data': Type.Object({
            format: ImportOption('csv, json or ndjson (default: from the file name)'),
            delimiter: ImportOption('CSV delimiter (default: detected)'),
            encoding: ImportOption('utf-8 (default), latin1 or windows-1252'),
            mode: ImportOption('replace (default) or merge'),
            dry_run: ImportOption('true: report what would change and write nothing'),
            file: FilePart('the catalog file (.csv, .json array or .ndjson); after the other fields'),
          }),
          'application/json': Type.Object({
            url: Type.String({ description: 'where to fetch the catalog file (the image fetch rules apply)' }),
            format: ImportOption('csv, json or ndjson (default: from the URL)'),
            delimiter: ImportOption('CSV delimiter (default: detected)'),
            encoding: ImportOption('utf-8 (default), latin1 or windows-1252'),
            mode: ImportOption('replace (default) or merge'),
            dry_run: Type.Optional(Type.Boolean({ description: 'report what would change and write nothing' })),
          }),
        },
      },
      schema: {
        operationId: 'adminStartImport',
        tags,
        summary: 'Queue a catalog import (202)',
        description:
          'multipart/form-data with a `file` field (.csv, .json array or .ndjson; optional fields format, delimiter, encoding, mode, dry_run given before the file), or a JSON body {"url", "format"?, "delimiter"?, "encoding"?, "mode"?, "dry_run"?} fetched with the image fetch rules (no private or metadata addresses unless VITRINE_ALLOW_PRIVATE_FETCH, at most 3 redirects). Rows go through the store\'s mapping profile and the rules of POST /v1/products. `mode`: `replace` (default; each row is the whole product, as POST /v1/products) or `merge` (only the fields in the file change, as PUT /v1/products, and new products are created). `dry_run: true` reports what would be inserted, updated, unchanged or rejected and writes nothing. Rows identical to what is stored count as unchanged and write nothing.',
        params: Type.Object({ store_uuid: Type.String() }),
        response: {
          202: Envelope(Type.Object({ import_id: Type.String(), status: Type.String() })),
          ...standardErrors(413),
        },
      },
    },
    async (request, reply) => {
      const { store_uuid } = request.params;
      const encodingOf = (value: unknown) => parseEncoding(value);
      if (request.isMultipart()) {
        const file = await request.file();
        if (!file) throw new InvalidRequestError("multipart field 'file' is required", 'file');
        const field = (name: string) => {
          const f = file.fields[name] as { value?: unknown } | undefined;
          return typeof f?.value === 'string' ? f.value : undefined;
        };
        const queued = await imports.fromUpload(store_uuid, file.filename, file.file, {
          format: field('format'),
          delimiter: field('delimiter'),
          encoding: encodingOf(field('encoding')),
          mode: parseImportMode(field('mode')),
          dryRun: parseFlag(field('dry_run'), 'dry_run'),
        });
        return reply.code(202).send(ok(request, queued));
      }
      const body = request.body as
        | {
            url?: unknown;
            format?: unknown;
            delimiter?: unknown;
            encoding?: unknown;
            mode?: unknown;
            dry_run?: unknown;
          }
        | undefined;
      if (!body || typeof body.url !== 'string')
        throw new InvalidRequestError("send the file as multipart field 'file', or a JSON body with 'url'", 'url');
      const queued = await imports.fromUrl(store_uuid, body.url, {
        format: typeof body.format === 'string' ? body.format : undefined,
        delimiter: typeof body.delimiter === 'string' ? body.delimiter : undefined,
        encoding: encodingOf(body.encoding),
        mode: parseImportMode(body.mode),
        dryRun: parseFlag(body.dry_run, 'dry_run'),
      });
      return reply.code(202).send(ok(request, queued));
    },
  );

  app.get(
    '/imports/:id',
    {
      schema: {
        operationId: 'adminGetImport',
        tags,
        summary: "An import's status, progress and summary",
        params: Type.Object({ id: Type.String() }),
        response: { 200: Envelope(ImportStatus), ...standardErrors() },
      },
    },
    async (request) => ok(request, await imports.get(request.params.id)),
  );

  app.get(
    '/imports/:id/rejects',
    {
      schema: {
        operationId: 'adminGetImportRejects',
        tags,
        summary: 'Rejected rows of an import (NDJSON: line, product_code, reason, details, row)',
        params: Type.Object({ id: Type.String() }),
        response: {
          200: {
            description: 'one JSON object per rejected row (empty when none was rejected)',
            content: { 'application/x-ndjson': { schema: Type.Unknown() } },
          },
          ...standardErrors(),
        },
      },
    },
    async (request, reply) => {
      const file = await imports.rejects(request.params.id);
      reply.type('application/x-ndjson');
      return file ? reply.send(fs.createReadStream(file)) : reply.send('');
    },
  );
};
