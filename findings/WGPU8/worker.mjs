// The worker of repro.html: one session of TopK-10 (K a graph input), X float32 [2, 5]; runs K values
// given by the page in turn and posts each outcome, so that the page's timer sees a run that
// never returns (it blocks this worker's thread, timers included).
import { model, TYPES } from './onnx_model.mjs';

onmessage = async (event) => {
  const { file, ks } = event.data;
  const ort = await import(`./node_modules/onnxruntime-web/dist/${file}`);
  ort.env.wasm.numThreads = 1;
  const bytes = model('TopK', { axis: 1 }, TYPES.float32, [2, 5], 'input', 10, [2, 'k']);
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['webgpu'] });
  const X = new ort.Tensor('float32', Float32Array.from([3, 1, 4, 1, 5, 9, 2, 6, 5, 3]), [2, 5]);
  for (const k of ks) {
    postMessage(`running K=${k}`);
    const outcome = await session.run({ X, K: new ort.Tensor('int64', BigInt64Array.from([BigInt(k)]), [1]) })
      .then((out) => `values ${JSON.stringify(Array.from(out.Values.data))}`, (error) => `error: ${String(error.message).split('\n')[0].slice(-90)}`);
    postMessage(`K=${k}: ${outcome}`);
  }
  postMessage('done');
};
