// NaN lands in the middle of TopK's output on ONNX Runtime Web's WebAssembly provider,
// neither above nor below every number, and not at the places ONNX Runtime's native CPU provider
// puts it. No document places NaN: the answer accepted is either placement (every NaN above
// every number, or every NaN below), ties by index. Run by repro.py.
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

const fmt = (xs) => `[${xs.map((v) => (Object.is(v, -0) ? '-0' : String(v))).join(', ')}]`;
// The answer with every NaN above (nanHigh) or below every number, ties by the lower index.
function answer(x, k, largest, nanHigh) {
  const rank = (v) => (Number.isNaN(v) ? (nanHigh ? Infinity : -Infinity) : v);
  const order = x.map((v, i) => i).sort((a, b) => {
    const ra = rank(x[a]); const rb = rank(x[b]);
    const sa = Number.isNaN(x[a]) ? (nanHigh ? 1 : -1) : 0; const sb = Number.isNaN(x[b]) ? (nanHigh ? 1 : -1) : 0;
    const d = (ra === rb ? sa - sb : ra < rb ? -1 : 1) * (largest ? -1 : 1);
    return d || a - b;
  }).slice(0, k);
  return { values: order.map((i) => x[i]), indices: order };
}

async function topk(x, k, largest, nativeSaw) {
  let session;
  try {
    session = await ort.InferenceSession.create(model('TopK', { axis: 0, largest, sorted: 1 }, TYPES.float32, [x.length], k, 11, [k]),
      { executionProviders: ['wasm'] });
  } catch (error) {
    console.log(`CANNOT RUN: this release cannot load the model: ${firstLine(error)}`);
    process.exit(2);
  }
  const out = await session.run({ X: new ort.Tensor('float32', Float32Array.from(x), [x.length]) });
  const got = { values: Array.from(out.Values.data), indices: Array.from(out.Indices.data, Number) };
  const high = answer(x, k, largest, true); const low = answer(x, k, largest, false);
  const same = (a) => fmt(a.values) === fmt(got.values) && fmt(a.indices) === fmt(got.indices);
  console.log(`TopK-11 float32 ${fmt(x)} K=${k} ${largest ? 'largest' : 'smallest'} -> values ${fmt(got.values)}, indices ${fmt(got.indices)}`);
  console.log(`  documents' answer (NaN unplaced, so either): NaN above the numbers: ${fmt(high.values)} at ${fmt(high.indices)}; NaN below: ${fmt(low.values)} at ${fmt(low.indices)}`);
  console.log(`  ONNX Runtime 1.31.1's native CPU provider gave (2026-11-26): ${nativeSaw}`);
  return !same(high) && !same(low);
}

const shown = [
  await topk([NaN, 0, 0], 3, 1, 'values [0, NaN, 0], indices [1, 0, 2] (the same)'),
  await topk([NaN, 2, -1, NaN, 0], 4, 0, 'values [-1, 0, NaN, NaN], indices [2, 4, 0, 3]'),
];
const reproduced = shown.some(Boolean);
console.log(reproduced ? 'REPRODUCED' : 'NOT REPRODUCED');
process.exit(reproduced ? 0 : 1);
