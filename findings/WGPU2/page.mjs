// The page side of this repro (ONNX Runtime Web's WebGPU provider in a browser): loads
// onnxruntime-web from ./node_modules, says which browser and WebGPU adapter it runs on, runs the
// finding's body and POSTs {lines, verdict, code} to /result (repro.py serves this folder and
// prints it). In a browser opened by hand the report also shows on the page.
import { model, TYPES } from './onnx_model.mjs';

export { model, TYPES };
export class CannotRun extends Error {}
const lines = [];
let sent = false;
export const say = (...parts) => { lines.push(parts.join(' ')); };
export const fmt = (xs) => `[${Array.from(xs, (v) => (Object.is(v, -0) ? '-0' : String(v))).join(', ')}]`;
export const firstLine = (error) => `${error?.name && error.name !== 'Error' ? `${error.name}: ` : ''}${String(error?.message ?? error).split('\n')[0].slice(0, 400)}`;

async function finish(verdict, code) {
  if (sent) return;
  sent = true;
  document.getElementById('out').textContent = [...lines, verdict].join('\n');
  await fetch('/result', { method: 'POST', body: JSON.stringify({ lines, verdict, code }) }).catch(() => {});
}
window.addEventListener('error', (event) => finish(`the page failed: ${event.message}`, 3));
window.addEventListener('unhandledrejection', (event) => finish(`the page failed: ${firstLine(event.reason)}`, 3));

// ONNX Runtime's own log (session option logSeverityLevel 0), for its placement lines.
export const log = [];
export let loadedFrom = 'ort.webgpu.min.mjs';  // the dist file onnxruntime-web was loaded from
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  const original = console[level].bind(console);
  console[level] = (...parts) => { log.push(parts.join(' ')); original(...parts); };
}
export const placement = (from) => log.slice(from).filter((line) => line.includes('placed on')).map((line) => line.split('] ').pop().trim());

async function setUp() {
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) throw new CannotRun(`this browser offers no WebGPU adapter (${navigator.userAgent})`);
  const info = adapter.info ?? (adapter.requestAdapterInfo ? await adapter.requestAdapterInfo() : {});
  let ort;
  const tried = [];
  for (const file of ['ort.webgpu.min.mjs', 'ort.webgpu.mjs', 'ort.all.min.mjs']) {
    try {
      ort = await import(`./node_modules/onnxruntime-web/dist/${file}`);
      if (!ort.InferenceSession && ort.default) ort = ort.default;
      if (ort.InferenceSession) { loadedFrom = file; break; }
    } catch (error) {
      tried.push(`${file}: ${firstLine(error)}`);
    }
  }
  if (!ort?.InferenceSession) throw new CannotRun(`onnxruntime-web has no WebGPU ES module build here (${tried.join('; ')})`);
  ort.env.wasm.numThreads = 1;
  const { version } = await (await fetch('./node_modules/onnxruntime-web/package.json')).json();
  say(`onnxruntime-web ${version}; ${navigator.userAgent}; WebGPU adapter: vendor ${info.vendor}, architecture `
      + `${info.architecture}, device "${info.device}", description "${info.description}", shader-f16 ${adapter.features.has('shader-f16')}`);
  return ort;
}

// A session of a one-node model; a release that cannot create it at all cannot run the repro.
export async function session(ort, bytes, ep = 'webgpu') {
  const from = log.length;
  try {
    const s = await ort.InferenceSession.create(bytes, { executionProviders: [ep], logSeverityLevel: 0, logVerbosityLevel: 0 });
    s.placed = placement(from);
    return s;
  } catch (error) {
    throw new CannotRun(`this release cannot create the session (${ep}): ${firstLine(error)}`);
  }
}
// Findings about the WebGPU kernel: where ONNX Runtime put the node on its CPU provider, the
// release has no WebGPU kernel for it and cannot show the finding.
export function requireWebGpu(s) {
  if (s.placed.length && s.placed.every((line) => !line.includes('WebGpu') && !line.includes('JsExecutionProvider'))) {
    throw new CannotRun(`this release has no WebGPU kernel for the node (${s.placed.join(' | ')})`);
  }
}

export async function main(body) {
  try {
    const ort = await setUp();
    const shown = await body(ort);
    await finish(shown ? 'REPRODUCED' : 'NOT REPRODUCED', shown ? 0 : 1);
  } catch (error) {
    if (error instanceof CannotRun) await finish(`CANNOT RUN: ${error.message}`, 2);
    else await finish(`the page failed: ${firstLine(error)}`, 3);
  }
}

const ARRAYS = { float32: Float32Array, int32: Int32Array, float64: Float64Array, uint8: Uint8Array, int8: Int8Array };
// TopK over a 1-D input (K an initializer; at opset 1 an attribute). Returns values, indices
// and ONNX Runtime's placement lines.
export async function topk(ort, x, k, { largest = 1, type = 'float32', opset = 11, ep = 'webgpu', webgpuKernel = true } = {}) {
  const attributes = opset === 1 ? { axis: 0, k } : { axis: 0, largest, sorted: 1 };
  const s = await session(ort, model('TopK', attributes, TYPES[type], [x.length], opset === 1 ? undefined : k, opset, [k]), ep);
  if (ep === 'webgpu' && webgpuKernel) requireWebGpu(s);
  const out = await s.run({ X: new ort.Tensor(type, ARRAYS[type].from(x), [x.length]) });
  return { values: Array.from(out.Values.data, Number), indices: Array.from(out.Indices.data, Number), placed: s.placed };
}
// The answer with every NaN above (nanHigh) or below every number, ties by the lower index.
export function answer(x, k, largest, nanHigh = true) {
  const key = (v) => (Number.isNaN(v) ? (nanHigh ? 1 : -1) : 0);
  const order = x.map((v, i) => i).sort((a, b) => {
    const ka = key(x[a]); const kb = key(x[b]);
    const d = ka !== kb ? ka - kb : ka !== 0 || x[a] === x[b] ? 0 : x[a] < x[b] ? -1 : 1;
    return d * (largest ? -1 : 1) || a - b;
  }).slice(0, k);
  return { values: order.map((i) => x[i]), indices: order };
}
export const same = (a, b) => fmt(a.values) === fmt(b.values) && fmt(a.indices) === fmt(b.indices);
