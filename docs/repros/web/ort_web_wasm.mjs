// ONNX Runtime Web's WebAssembly provider (the wasm kernels) in Node.js, without the suite.
// Run: npm install onnxruntime-web@1.30.0 && node ort_web_wasm.mjs
// (or ORT_WEB=/path/to/node_modules/onnxruntime-web node ort_web_wasm.mjs)
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { model, TYPES } from './onnx_model.mjs';

const where = process.env.ORT_WEB;
const ort = await import(where ? pathToFileURL(`${where}/dist/ort.node.min.mjs`).href : 'onnxruntime-web');
ort.env.wasm.numThreads = 1;
console.log(`onnxruntime-web ${ort.env.versions.web}, Node.js ${process.version}, ${os.platform()} ${os.arch()}, ${os.cpus()[0]?.model}`);

async function topk(x, shape, k, axis, largest = 1) {
  const outShape = shape.map((d, i) => (i === (axis + shape.length) % shape.length ? k : d));
  const bytes = model('TopK', { axis, largest, sorted: 1 }, TYPES.float32, shape, k, 11, outShape);
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  const out = await session.run({ X: new ort.Tensor('float32', Float32Array.from(x), shape) });
  return { values: Array.from(out.Values.data), indices: Array.from(out.Indices.data, Number), dims: out.Values.dims };
}

const results = {};

// W1. An input with a zero-sized dimension other than the axis: [0, 4], axis 1, K = 2. The
// outputs are empty tensors of shape [0, 2] (ONNX TopK; ONNX Runtime's native CPU provider
// returns them). The WebAssembly kernel traps instead.
try {
  const out = await topk([], [0, 4], 2, 1);
  console.log('W1 float32 [0, 4] axis 1 K=2 -> shape', out.dims, '(want [0, 2])');
  results.W1 = false;
} catch (error) {
  console.log('W1 float32 [0, 4] axis 1 K=2 -> error:', String(error.message).split('\n')[0], '(want empty outputs of shape [0, 2])');
  results.W1 = /divide by zero/.test(String(error.message));
}

// W2. NaN lands in the middle (as on ONNX Runtime's CPU provider): [NaN, 0, 0], K = 3
// largest. No document places NaN; either reading puts it first or last, ties by index.
const w2 = await topk([NaN, 0, 0], [3], 3, 0);
console.log('W2 float32 [NaN, 0, 0] K=3 largest ->', w2.values, w2.indices, '(want NaN first: [0, 1, 2], or last: [1, 2, 0])');
results.W2 = Number.isNaN(w2.values[1]);

for (const [name, shown] of Object.entries(results)) console.log(`${name}: ${shown ? 'REPRODUCED' : 'NOT REPRODUCED'}`);
const missing = Object.entries(results).filter(([, shown]) => !shown).map(([name]) => name);
console.log(missing.length ? `NOT REPRODUCED (${missing.join(', ')})` : 'REPRODUCED');
