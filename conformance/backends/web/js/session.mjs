// What the Node host (host.mjs) and the Chromium page (page.html) share: one request of the
// suite (a model's bytes and its inputs, as base64) run on one ONNX Runtime Web execution
// provider, and its outputs sent back the same way. The Python side (conformance/backends/web/protocol.py)
// writes the requests and reads the replies.

// Typed arrays by ONNX Runtime Web's tensor type names (float16 travels as its bits).
const ARRAYS = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
  uint64: BigUint64Array, bool: Uint8Array,
};

// Sessions kept by the model's key (graphs equal up to their name share one), the oldest
// released beyond this many.
const KEPT = 16;

export class Runner {
  // ort: the onnxruntime-web module; provider: 'wasm' or 'webgpu'; codec: {decode(b64) ->
  // Uint8Array, encode(Uint8Array) -> b64}.
  constructor(ort, provider, codec) {
    this.ort = ort;
    this.provider = provider;
    this.codec = codec;
    this.sessions = new Map();
  }

  async session(request) {
    const kept = this.sessions.get(request.key);
    if (kept !== undefined) {
      this.sessions.delete(request.key);
      this.sessions.set(request.key, kept); // most recently used last
      return kept;
    }
    const session = await this.ort.InferenceSession.create(this.codec.decode(request.model), {
      executionProviders: [this.provider],
      // Verbose: ONNX Runtime logs each node's provider ("All nodes placed on [...]") only so.
      logSeverityLevel: 0,
      logVerbosityLevel: 0,
    });
    this.sessions.set(request.key, session);
    while (this.sessions.size > KEPT) {
      const [oldest, released] = this.sessions.entries().next().value;
      this.sessions.delete(oldest);
      await released.release();
    }
    return session;
  }

  // The reply: {outputs: [{name, type, dims, data}]} or {error: ONNX Runtime's message}.
  async run(request) {
    const started = performance.now();
    let compiled = started;
    let session;
    try {
      session = await this.session(request);
      compiled = performance.now();
      const feeds = {};
      for (const input of request.inputs) {
        const Array_ = ARRAYS[input.type];
        if (Array_ === undefined) throw new Error(`ONNX Runtime Web has no tensor type ${input.type}`);
        const bytes = this.codec.decode(input.data);
        const data = new Array_(bytes.buffer, bytes.byteOffset, bytes.byteLength / Array_.BYTES_PER_ELEMENT);
        feeds[input.name] = new this.ort.Tensor(input.type, data, input.dims);
      }
      const results = await session.run(feeds);
      const outputs = request.outputs.map((name) => {
        const tensor = results[name];
        const data = tensor.data;
        const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        return { name, type: tensor.type, dims: Array.from(tensor.dims), data: this.codec.encode(bytes) };
      });
      return { outputs, compile_ms: compiled - started, run_ms: performance.now() - compiled };
    } catch (error) {
      if (session !== undefined && this.sessions.get(request.key) === session) {
        // A session whose run failed is not run again (as the suite's other ONNX Runtime
        // backends do): under WebGPU its next run never returns (docs/findings.md).
        this.sessions.delete(request.key);
        await session.release();
      }
      // The stage: no session means creating it (loading, optimizing, placing the graph) failed.
      const stage = session === undefined ? 'compiling' : 'running';
      return { error: String(error && error.message ? error.message : error), stage, compile_ms: compiled - started };
    }
  }
}
