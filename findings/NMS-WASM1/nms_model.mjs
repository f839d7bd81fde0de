// A one-node ONNX NonMaxSuppression model as bytes, written by hand in protobuf's wire format, so
// that this repro needs nothing but onnxruntime-web.
// nmsModel(n, opset, cap, iou, score): float32 inputs boxes [1, n, 4] and scores [1, 1, n];
// max_output_boxes_per_class (int64 [1]), iou_threshold and score_threshold (float32 [1]) as
// initializers; output selected (int64 [?, 3]). ir_version is the lowest the opset allows, so
// that older releases load the model.

const FLOAT = 1;
const INT64 = 7;

function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const number = (field, value) => [...key(field, 0), ...varint(value)];
const bytes = (field, data) => [...key(field, 2), ...varint(data.length), ...data];
const text = (field, s) => bytes(field, [...new TextEncoder().encode(s)]);

function valueInfo(name, elemType, shape) {
  const dims = shape.flatMap((d) => bytes(1, typeof d === 'string' ? text(2, d) : number(1, d)));
  return [...text(1, name), ...bytes(2, bytes(1, [...number(1, elemType), ...bytes(2, dims)]))];
}

function initializer(name, elemType, array) {  // a one-element tensor of shape [1], its raw bytes
  return bytes(5, [...number(1, 1), ...number(2, elemType), ...text(8, name), ...bytes(9, [...new Uint8Array(array.buffer)])]);
}

export function nmsModel(n, opset, cap, iou, score) {
  const names = ['boxes', 'scores', 'cap', 'iou', 'score'];
  const node = [...names.flatMap((name) => text(1, name)), ...text(2, 'selected'), ...text(3, 'nms'),
    ...text(4, 'NonMaxSuppression')];
  const graph = [...bytes(1, node), ...text(2, 'repro'),
    ...initializer('cap', INT64, new BigInt64Array([BigInt(cap)])),
    ...initializer('iou', FLOAT, new Float32Array([iou])), ...initializer('score', FLOAT, new Float32Array([score])),
    ...bytes(11, valueInfo('boxes', FLOAT, [1, n, 4])), ...bytes(11, valueInfo('scores', FLOAT, [1, 1, n])),
    ...bytes(12, valueInfo('selected', INT64, ['selected', 3]))];
  const irVersion = opset >= 11 ? 6 : 5;
  return new Uint8Array([...number(1, irVersion), ...bytes(8, [...text(1, ''), ...number(2, opset)]), ...bytes(7, graph)]);
}
