/* The bridge between the suite (Linux, Python) and DirectML (Windows DLLs under Wine).
 *
 * One long-lived process; requests arrive on stdin and replies leave on stdout, one after
 * another, as frames (all integers little-endian):
 *
 *   request: u32 magic BRIDGE_MAGIC, u32 op, u64 payload length, payload
 *   reply:   u32 magic BRIDGE_MAGIC, u32 status, u32 code, u32 reserved, u64 length, payload
 *
 * status: STATUS_OK (payload as the op defines), STATUS_REFUSED (the runtime refused or
 * failed; code holds the HRESULT or OrtErrorCode, payload the error text, naming the call),
 * STATUS_BAD_REQUEST (the bridge could not read the request; payload says why).
 *
 * Payload items: str = u32 length + UTF-8 bytes; tensor = u32 element type (ONNX
 * TensorProto enum: FLOAT=1 UINT8=2 INT8=3 UINT16=4 INT16=5 INT32=6 INT64=7 FLOAT16=10
 * DOUBLE=11 UINT32=12 UINT64=13 BFLOAT16=16), u32 rank, i64 dims[rank], u64 byte count,
 * bytes (C order).
 *
 * OP_ORT_INFO / OP_DML_INFO: no payload; reply text of "key=value\n" lines.
 * OP_ORT_RUN: str cache key (sessions are kept per key; empty: not kept; beginning with
 *   "cpu-fallback:", the session lets ONNX Runtime place a node DirectML declines on its CPU
 *   provider, as for a user's whole model, where otherwise that node fails the session), u64
 *   model length + serialized ONNX model, u32 input count + (str name, tensor) each, u32 output
 *   count + (str name, u32 preallocate, tensor spec with byte count 0 and no bytes) each;
 *   a preallocated output is filled with SENTINEL_BYTE before the run.
 *   Reply: u32 output count + tensor each, then str placement (ONNX Runtime's own record of
 *   the provider each TopK node was assigned to, "TopK:<node name>=<provider>;...").
 * OP_DML_RUN: any DirectML operator, as its DML_OPERATOR_DESC: u32 operator type
 *   (DML_OPERATOR_TYPE), u32 member count (at most DML_MAX_MEMBERS), then the members of its
 *   desc struct in declaration order, each: u32 kind, str member name (DirectML's, e.g.
 *   "OutputIndexTensor": for messages), then by kind
 *     MEMBER_INPUT_TENSOR  tensor (the data bound to that input),
 *     MEMBER_OUTPUT_TENSOR str output name, tensor spec (byte count 0, no bytes),
 *     MEMBER_UINT / MEMBER_INT / MEMBER_FLOAT  u32 (the bits of a UINT, INT or FLOAT; enums
 *       such as DML_AXIS_DIRECTION are UINTs),
 *     MEMBER_UINT_ARRAY    u32 count (at most DML_MAX_ARRAY) + u32 values[count]: DirectML's
 *       `UINT Count; const UINT* Values;` pair, two members of the struct.
 *   The bridge lays the struct out as x64 C does (pointers 8 bytes and 8-aligned, UINT, INT
 *   and FLOAT 4; at most DML_MAX_DESC_BYTES), each tensor as a DML_BUFFER_TENSOR_DESC (packed
 *   sizes, no strides), binds the input tensors and the output tensors in member order, and
 *   pre-fills the outputs with SENTINEL_BYTE before the dispatch. Compiled operators are kept
 *   per request, input bytes left out. DirectML judges the desc: its refusal is
 *   STATUS_REFUSED with the HRESULT; a request the bridge cannot lay out is
 *   STATUS_BAD_REQUEST.
 *   Reply: u32 output count + (str output name, tensor) each, in member order.
 * OP_QUIT: no payload, no reply; the bridge exits (as it does at end of input). */
#ifndef TOPK_BRIDGE_H
#define TOPK_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#define BRIDGE_MAGIC 0x32424B54u /* "TKB2": 2 since OP_DML_RUN carries any operator */
#define BRIDGE_VERSION "2"
#define SENTINEL_BYTE 0xA5
#define MAX_RANK 16

enum { OP_QUIT = 0, OP_ORT_INFO = 1, OP_ORT_RUN = 2, OP_DML_INFO = 3, OP_DML_RUN = 4 };
enum { STATUS_OK = 0, STATUS_REFUSED = 1, STATUS_BAD_REQUEST = 2 };
enum {
    MEMBER_INPUT_TENSOR = 1, MEMBER_OUTPUT_TENSOR = 2, MEMBER_UINT = 3, MEMBER_INT = 4,
    MEMBER_FLOAT = 5, MEMBER_UINT_ARRAY = 6
};
#define DML_MAX_MEMBERS 32
#define DML_MAX_TENSORS 8 /* input tensors, and output tensors, each */
#define DML_MAX_ARRAY 64
#define DML_MAX_DESC_BYTES 256 /* DirectML's largest desc structs are about half that */
enum {
    ELEM_FLOAT = 1, ELEM_UINT8 = 2, ELEM_INT8 = 3, ELEM_UINT16 = 4, ELEM_INT16 = 5,
    ELEM_INT32 = 6, ELEM_INT64 = 7, ELEM_BOOL = 9, ELEM_FLOAT16 = 10, ELEM_DOUBLE = 11, ELEM_UINT32 = 12,
    ELEM_UINT64 = 13, ELEM_BFLOAT16 = 16
};

/* A growing output buffer. */
typedef struct {
    uint8_t *data;
    size_t len, cap;
} Buf;

void buf_bytes(Buf *b, const void *data, size_t n);
void buf_u32(Buf *b, uint32_t v);
void buf_u64(Buf *b, uint64_t v);
void buf_str(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...);
void buf_tensor(Buf *b, uint32_t elem_type, uint32_t rank, const int64_t *dims,
                const void *data, uint64_t nbytes);
void buf_free(Buf *b);

/* A cursor over a request payload; `bad` is set (and stays set) on any overrun. */
typedef struct {
    const uint8_t *p;
    size_t left;
    int bad;
} Reader;

uint32_t rd_u32(Reader *r);
uint64_t rd_u64(Reader *r);
const uint8_t *rd_bytes(Reader *r, size_t n);
char *rd_str(Reader *r); /* malloc'd and NUL-terminated; NULL when bad */

typedef struct {
    uint32_t elem_type;
    uint32_t rank;
    int64_t dims[MAX_RANK];
    uint64_t nbytes;
    const uint8_t *data; /* points into the request; NULL for a spec without bytes */
} Tensor;

int rd_tensor(Reader *r, Tensor *t); /* 0 on success */
size_t elem_size(uint32_t elem_type); /* 0 for an unknown type */

typedef struct {
    uint32_t status;
    uint32_t code;
    Buf payload;
} Reply;

void reply_refused(Reply *reply, uint32_t code, const char *fmt, ...);
void reply_bad_request(Reply *reply, const char *fmt, ...);

/* The two halves; each answers its ops into `reply`, never exits the process. */
void ort_info(Reply *reply);
void ort_run(Reader *request, Reply *reply);
void dml_info(Reply *reply);
void dml_run(Reader *request, Reply *reply);

/* The directory of bridge.exe, with a trailing backslash (the DLLs lie beside it). */
const wchar_t *bridge_dir(void);

#endif
