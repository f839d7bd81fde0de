// For ort_web_webgpu.html's G8: a session run again after a run that failed, in a worker of its
// own, so that the page's own timer can tell a run that never returns (it blocks the thread
// that runs ONNX Runtime Web).
import { model, TYPES } from './onnx_model.mjs';

const ort = await import('./node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs');
ort.env.wasm.numThreads = 1;
const bytes = model('TopK', { axis: 1 }, TYPES.float32, [2, 5], 'input', 10, [2, 'k']);
const session = await ort.InferenceSession.create(bytes, { executionProviders: ['webgpu'] });
const X = new ort.Tensor('float32', Float32Array.from([3, 1, 4, 1, 5, 9, 2, 6, 5, 3]), [2, 5]);
for (const k of [6, 2]) {
  postMessage(`running K=${k}`);
  const outcome = await session.run({ X, K: new ort.Tensor('int64', BigInt64Array.from([BigInt(k)]), [1]) })
    .then((out) => `values ${Array.from(out.Values.data)}`, (error) => `error: ${String(error.message).slice(-70)}`);
  postMessage(`K=${k}: ${outcome}`);
}
postMessage('done');
