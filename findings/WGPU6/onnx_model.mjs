// A one-node ONNX model (TopK or ArgMax/ArgMin) as bytes, written by hand in protobuf's wire
// format, so that this repro needs nothing but onnxruntime-web.
// model(opType, attributes, elemType, shape, k, opset, outShape): input X of elemType and
// shape (a number is a fixed dimension, a string a symbolic one); K (int64 [1]) is an
// initializer when k is a number, a second graph input when it is 'input', absent when
// undefined (TopK-1 takes `k` as an attribute). ir_version is the lowest the opset allows, so
// that older releases load the model.

export const TYPES = { float32: 1, uint8: 2, int8: 3, int32: 6, int64: 7, float16: 10, float64: 11 };
const INT64 = 7;
const IR_FOR_OPSET = [[1, 3], [10, 5], [11, 6], [12, 7], [13, 7], [22, 10], [23, 11], [24, 12]];

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
  const dims = (shape || []).flatMap((d) => bytes(1, typeof d === 'string' ? text(2, d) : number(1, d)));
  const tensor = [...number(1, elemType), ...bytes(2, dims)];
  return [...text(1, name), ...bytes(2, bytes(1, tensor))];
}

export function irVersion(opset) {
  return IR_FOR_OPSET.filter(([o]) => o <= opset).at(-1)[1];
}

export function model(opType, attributes, elemType, shape, k, opset, outShape) {
  const inputs = k === undefined ? ['X'] : ['X', 'K'];
  const outputs = opType === 'TopK' ? ['Values', 'Indices'] : ['Y'];
  const node = [
    ...inputs.flatMap((n) => text(1, n)), ...outputs.flatMap((n) => text(2, n)), ...text(3, 'node'),
    ...text(4, opType),
    // every attribute here is an INT (type 2)
    ...Object.entries(attributes).flatMap(([name, i]) => bytes(5, [...text(1, name), ...number(3, i), ...number(20, 2)])),
  ];
  const graph = [...bytes(1, node), ...text(2, 'repro')];
  if (k !== undefined && k !== 'input') {
    const raw = new Uint8Array(new BigInt64Array([BigInt(k)]).buffer);
    graph.push(...bytes(5, [...number(1, 1), ...number(2, INT64), ...text(8, 'K'), ...bytes(9, [...raw])]));
  }
  graph.push(...bytes(11, valueInfo('X', elemType, shape)));
  if (k === 'input') graph.push(...bytes(11, valueInfo('K', INT64, [1])));
  const outputType = (name) => (name === 'Values' ? elemType : INT64);
  outputs.forEach((name) => graph.push(...bytes(12, valueInfo(name, outputType(name), outShape))));
  const opsetImport = [...text(1, ''), ...number(2, opset)];
  return new Uint8Array([...number(1, irVersion(opset)), ...bytes(8, opsetImport), ...bytes(7, graph)]);
}
