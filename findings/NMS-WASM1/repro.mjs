// ONNX Runtime Web's WebAssembly execution provider drops a box whose score equals score_threshold
// in ONNX NonMaxSuppression (opsets 10 and 11). ONNX: "Bounding boxes with score less than
// score_threshold are removed", so a score equal to it stays. The boxes do not overlap, so only
// the score threshold can remove one. Run by repro.py.
import { readFileSync } from 'node:fs';
import { nmsModel } from './nms_model.mjs';

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

const boxes = [0, 0, 1, 1, 0, 2, 1, 3, 0, 4, 1, 5];  // three disjoint boxes [y1, x1, y2, x2]: IoU 0
const scores = [0.9, 0.5, 0.5];
let wrong = false;
for (const opset of [10, 11]) {
  let session;
  try {
    session = await ort.InferenceSession.create(nmsModel(3, opset, 10, 0.5, 0.5), { executionProviders: ['wasm'] });
  } catch (error) {
    console.log(`CANNOT RUN: this release cannot load the model: ${firstLine(error)}`);
    process.exit(2);
  }
  const out = await session.run({
    boxes: new ort.Tensor('float32', Float32Array.from(boxes), [1, 3, 4]),
    scores: new ort.Tensor('float32', Float32Array.from(scores), [1, 1, 3]),
  });
  const rows = Array.from(out.selected.data, Number);
  const kept = rows.filter((_, i) => i % 3 === 2).sort((a, b) => a - b);
  const bad = kept.join() !== '0,1,2';
  wrong = wrong || bad;
  console.log(`NonMaxSuppression-${opset}, three disjoint boxes, scores [0.9, 0.5, 0.5], score_threshold 0.5, `
    + `iou_threshold 0.5: ONNX keeps [0, 1, 2]; ONNX Runtime Web keeps [${kept.join(', ')}]${bad ? '  <- wrong' : ''}`);
}
console.log(wrong ? 'REPRODUCED' : 'NOT REPRODUCED');
process.exit(wrong ? 0 : 1);
