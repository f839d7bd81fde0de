// The Node end of the ort-web-wasm backend (conformance/backends/web/node_host.py): requests arrive on
// one inherited pipe, one JSON object a line, and each reply leaves on another the same way
// (`node host.mjs FOLDER REQUEST_FD REPLY_FD`). ONNX Runtime's
// own log goes to stderr, which the Python side reads per request.
import fs from 'node:fs';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Runner } from './session.mjs';

// Anything printed through console goes to stderr too, never into a reply.
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  console[level] = (...parts) => fs.writeSync(2, parts.join(' ') + '\n');
}

const [root, requestFd, replyFd] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])]; // root: the folder `npm ci` filled
const ort = await import(pathToFileURL(`${root}/node_modules/onnxruntime-web/dist/ort.node.min.mjs`).href);
ort.env.wasm.numThreads = 1; // one core per worker: --jobs decides how many run at once

const codec = {
  decode: (text) => {
    const buffer = Buffer.from(text, 'base64');
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  },
  encode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
};
const runner = new Runner(ort, 'wasm', codec);

function send(reply) {
  const data = Buffer.from(JSON.stringify(reply) + '\n');
  for (let at = 0; at < data.length;) at += fs.writeSync(replyFd, data, at);
}

send({ ready: true, versions: { ...ort.env.versions, node: process.versions.node, v8: process.versions.v8 } });
const lines = readline.createInterface({ input: fs.createReadStream(null, { fd: requestFd }), crlfDelay: Infinity });
for await (const line of lines) {
  if (line === '') continue;
  send(await runner.run(JSON.parse(line)));
}
