// Writes models/scoring/matmul-integer.onnx: the one-node ONNX graph that scores a quantized query
// against a matrix of catalogue vectors (MatMulInteger, int32 out). Dimensions and zero points are
// graph inputs, so the file fits every embedding model and is shipped prebuilt; this script is how it
// was made (a few protobuf fields written by hand, no protobuf library at install or run time).
// Run: node scripts/build-scoring-graph.mjs
import fs from 'node:fs';

const UINT8 = 2;
const INT32 = 6;

const varint = (value) => {
  const bytes = [];
  let v = BigInt(value);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v > 0n);
  return bytes;
};
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, value) => [...key(field, 0), ...varint(value)];
const bytes = (field, payload) => [...key(field, 2), ...varint(payload.length), ...payload];
const str = (field, text) => bytes(field, [...Buffer.from(text, 'utf8')]);

const dim = (d) => (typeof d === 'number' ? int(1, d) : str(2, d));
const shape = (dims) => dims.flatMap((d) => bytes(1, dim(d)));
const tensorType = (elemType, dims) => bytes(1, [...int(1, elemType), ...bytes(2, shape(dims))]);
const valueInfo = (name, elemType, dims) => [...str(1, name), ...bytes(2, tensorType(elemType, dims))];

const node = [
  ...str(1, 'query'),
  ...str(1, 'matrix'),
  ...str(1, 'query_zero'),
  ...str(1, 'matrix_zero'),
  ...str(2, 'scores'),
  ...str(4, 'MatMulInteger'),
];
const graph = [
  ...bytes(1, node),
  ...str(2, 'scores'),
  ...bytes(11, valueInfo('query', UINT8, [1, 'd'])),
  ...bytes(11, valueInfo('matrix', UINT8, ['d', 'n'])),
  ...bytes(11, valueInfo('query_zero', UINT8, [])),
  ...bytes(11, valueInfo('matrix_zero', UINT8, [])),
  ...bytes(12, valueInfo('scores', INT32, [1, 'n'])),
];
const model = [...int(1, 7), ...str(2, 'vitrine'), ...bytes(7, graph), ...bytes(8, [...str(1, ''), ...int(2, 13)])];

const target = new URL('../models/scoring/matmul-integer.onnx', import.meta.url);
fs.writeFileSync(target, Uint8Array.from(model));
console.log(`wrote ${target.pathname} (${model.length} bytes)`);
