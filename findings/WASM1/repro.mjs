// ONNX Runtime Web's WebAssembly provider traps ("RuntimeError: divide by zero") on a
// TopK input with a zero-sized dimension other than the axis, where the outputs are empty tensors.
// Run by repro.py; onnxruntime-web resolves from ./node_modules.
import { readFileSync } from 'node:fs';
import { model, TYPES } from './onnx_model.mjs';

const firstLine = (error) => `${error?.name && error.name !== 'Error' ? `${error.name}: ` : ''}${String(error?.message ?? error).split('\n')[0].slice(0, 300)}`;
let ort;
try {
  ort = await import('onnxruntime-web');
  if (!ort.InferenceSession && ort.default) ort = ort.default;
} catch (error) {
  console.log(`CANNOT RUN: onnxruntime-web cannot be loaded in Node.js: ${firstLine(error)}`);
  process.exit(2);
}
ort.env.wasm.numThreads = 1;
const { version } = JSON.parse(readFileSync(new URL('./node_modules/onnxruntime-web/package.json', import.meta.url)));
console.log(`onnxruntime-web ${version}, Node.js ${process.version}`);

async function session(bytes) {
  try {
    return await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  } catch (error) {
    console.log(`CANNOT RUN: this release cannot load the model: ${firstLine(error)}`);
    process.exit(2);
  }
}
async function run(s, type, data, shape) {
  const Typed = { float32: Float32Array, uint8: Uint8Array }[type];
  try {
    const out = await s.run({ X: new ort.Tensor(type, Typed.from(data), shape) });
    return `values shape [${out.Values.dims}] ${JSON.stringify(Array.from(out.Values.data))}, indices shape [${out.Indices.dims}] ${JSON.stringify(Array.from(out.Indices.data, Number))}`;
  } catch (error) {
    return `error: ${firstLine(error)}`;
  }
}

// 1. TopK-11, float32, X of shape [N, 4] (N symbolic), axis 1, K = 2 (an initializer), largest.
const s1 = await session(model('TopK', { axis: 1, largest: 1, sorted: 1 }, TYPES.float32, ['N', 4], 2, 11, ['N', 2]));
const empty = await run(s1, 'float32', [], [0, 4]);
console.log(`TopK-11 float32 X shape [0, 4] (no elements), axis 1, K=2, largest -> ${empty}`);
console.log('  documents\' answer: Values and Indices of shape [0, 2] (ONNX TopK: "Tensor of shape [a_0, a_1, ..., a_{axis-1}, k, a_{axis+1}, ... a_{n-1}]")');
const next = await run(s1, 'float32', [3, 1, 4, 1], [1, 4]);
console.log(`the same session, next run: X [[3, 1, 4, 1]] shape [1, 4] -> ${next}`);
console.log('  documents\' answer: values [[4, 3]], indices [[2, 0]]');

// 2. TopK-11, uint8, X of shape [2, 1, 0, 1, 1, 3, 1, 2], axis 5, K = 2, smallest.
const s2 = await session(model('TopK', { axis: 5, largest: 0, sorted: 1 }, TYPES.uint8, [2, 1, 0, 1, 1, 3, 1, 2], 2, 11, [2, 1, 0, 1, 1, 2, 1, 2]));
const empty8 = await run(s2, 'uint8', [], [2, 1, 0, 1, 1, 3, 1, 2]);
console.log(`TopK-11 uint8 X shape [2, 1, 0, 1, 1, 3, 1, 2] (no elements), axis 5, K=2, smallest -> ${empty8}`);
console.log("  documents' answer: Values and Indices of shape [2, 1, 0, 1, 1, 2, 1, 2]");

const shown = empty.startsWith('error') || empty8.startsWith('error');
console.log(shown ? 'REPRODUCED' : 'NOT REPRODUCED');
process.exit(shown ? 0 : 1);
