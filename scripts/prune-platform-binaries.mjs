// postinstall: onnxruntime-node ships its native libraries for every platform (about 240 MB); keep
// only this machine's. Safe to run twice; does nothing when the package is absent.
import fs from 'node:fs';
import path from 'node:path';

const bin = path.resolve('node_modules/onnxruntime-node/bin');
let freed = 0;
const sizeOf = (dir) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .reduce(
      (sum, entry) =>
        sum + (entry.isDirectory() ? sizeOf(path.join(dir, entry.name)) : fs.statSync(path.join(dir, entry.name)).size),
      0,
    );
if (fs.existsSync(bin)) {
  for (const napi of fs.readdirSync(bin)) {
    for (const platform of fs.readdirSync(path.join(bin, napi))) {
      for (const arch of fs.readdirSync(path.join(bin, napi, platform))) {
        if (platform === process.platform && arch === process.arch) continue;
        const dir = path.join(bin, napi, platform, arch);
        freed += sizeOf(dir);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  }
}
if (freed > 0)
  console.log(`pruned onnxruntime-node binaries of other platforms (${(freed / 1024 ** 2).toFixed(0)} MB)`);
