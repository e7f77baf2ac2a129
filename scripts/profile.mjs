// Where the time goes: runs one benchmark with its Vitrine server processes under V8's CPU profiler
// (--cpu-prof), then prints the hottest functions of the busiest server by self time.
//   npm run profile -- search          (any bench name; BENCH_SECONDS shortens it)
// The .cpuprofile files stay in bench/results/profiles/ (open them in Chrome DevTools or speedscope).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [name, top = '15'] = process.argv.slice(2);
if (!name) {
  console.error('usage: npm run profile -- <bench name, e.g. search> [how many functions]');
  process.exit(2);
}
const bench = fs.readdirSync('build/bench').find((file) => file.endsWith('.bench.js') && file.includes(name));
if (!bench) {
  console.error(`no bench matching "${name}" in build/bench`);
  process.exit(2);
}
const dir = path.resolve('bench/results/profiles', `${path.basename(bench, '.bench.js')}-${Date.now()}`);
fs.mkdirSync(dir, { recursive: true });
const run = spawnSync(process.execPath, [`build/bench/${bench}`], {
  stdio: 'inherit',
  env: { ...process.env, BENCH_PROFILE_DIR: dir },
});
if (run.status !== 0) process.exit(run.status ?? 1);

/** Self time per function (name, file, line) of one .cpuprofile. */
function selfTimes(file) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map();
  profile.samples.forEach((id, i) => {
    const { callFrame } = nodes.get(id);
    const where = callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/(dist|build)\//, '$1/');
    const key = `${callFrame.functionName || '(anonymous)'}  ${where}${where ? `:${callFrame.lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return byFunction;
}

const profiles = fs.readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
if (profiles.length === 0) {
  console.error(`no profile written in ${dir}`);
  process.exit(1);
}
// The busiest server: the profile with the least idle time.
const measured = profiles.map((file) => {
  const times = selfTimes(path.join(dir, file));
  const total = [...times.values()].reduce((a, b) => a + b, 0);
  const idle = times.get('(idle)  ') ?? 0;
  return { file, times, busy: total - idle };
});
measured.sort((a, b) => b.busy - a.busy);
const { file, times, busy } = measured[0];
console.log(`\nTop ${top} functions by self time, ${file} (${(busy / 1e6).toFixed(1)} s busy; idle excluded):`);
[...times.entries()]
  .filter(([key]) => !key.startsWith('(idle)'))
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(top))
  .forEach(([key, micros]) => console.log(`${((micros / busy) * 100).toFixed(1).padStart(5)} %  ${key}`));
console.log(`\nprofiles: ${dir}`);
