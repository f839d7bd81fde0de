/* The bridge's request loop and framing helpers (see bridge.h). */
#include <fcntl.h>
#include <io.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "bridge.h"

void buf_bytes(Buf *b, const void *data, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        uint8_t *grown = realloc(b->data, cap);
        if (!grown) {
            fprintf(stderr, "bridge: out of memory (%zu bytes)\n", cap);
            exit(3);
        }
        b->data = grown;
        b->cap = cap;
    }
    if (n) memcpy(b->data + b->len, data, n);
    b->len += n;
}

void buf_u32(Buf *b, uint32_t v) { buf_bytes(b, &v, 4); }
void buf_u64(Buf *b, uint64_t v) { buf_bytes(b, &v, 8); }

void buf_str(Buf *b, const char *s) {
    size_t n = strlen(s);
    buf_u32(b, (uint32_t)n);
    buf_bytes(b, s, n);
}

static void buf_vprintf(Buf *b, const char *fmt, va_list args) {
    char text[4096];
    int n = vsnprintf(text, sizeof text, fmt, args);
    if (n < 0) return;
    buf_bytes(b, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

void buf_printf(Buf *b, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    buf_vprintf(b, fmt, args);
    va_end(args);
}

void buf_tensor(Buf *b, uint32_t elem_type, uint32_t rank, const int64_t *dims,
                const void *data, uint64_t nbytes) {
    buf_u32(b, elem_type);
    buf_u32(b, rank);
    for (uint32_t i = 0; i < rank; i++) buf_bytes(b, &dims[i], 8);
    buf_u64(b, nbytes);
    buf_bytes(b, data, (size_t)nbytes);
}

void buf_free(Buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

const uint8_t *rd_bytes(Reader *r, size_t n) {
    if (r->bad || n > r->left) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *at = r->p;
    r->p += n;
    r->left -= n;
    return at;
}

uint32_t rd_u32(Reader *r) {
    uint32_t v = 0;
    const uint8_t *at = rd_bytes(r, 4);
    if (at) memcpy(&v, at, 4);
    return v;
}

uint64_t rd_u64(Reader *r) {
    uint64_t v = 0;
    const uint8_t *at = rd_bytes(r, 8);
    if (at) memcpy(&v, at, 8);
    return v;
}

char *rd_str(Reader *r) {
    uint32_t n = rd_u32(r);
    const uint8_t *at = rd_bytes(r, n);
    if (!at) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    memcpy(s, at, n);
    s[n] = 0;
    return s;
}

size_t elem_size(uint32_t elem_type) {
    switch (elem_type) {
    case ELEM_UINT8: case ELEM_INT8: case ELEM_BOOL: return 1;  /* ONNX Runtime's bool is one byte, as numpy's */
    case ELEM_UINT16: case ELEM_INT16: case ELEM_FLOAT16: case ELEM_BFLOAT16: return 2;
    case ELEM_FLOAT: case ELEM_INT32: case ELEM_UINT32: return 4;
    case ELEM_INT64: case ELEM_DOUBLE: case ELEM_UINT64: return 8;
    default: return 0;
    }
}

int rd_tensor(Reader *r, Tensor *t) {
    memset(t, 0, sizeof *t);
    t->elem_type = rd_u32(r);
    t->rank = rd_u32(r);
    if (r->bad || t->rank > MAX_RANK) return (r->bad = 1);
    for (uint32_t i = 0; i < t->rank; i++) t->dims[i] = (int64_t)rd_u64(r);
    t->nbytes = rd_u64(r);
    if (r->bad) return 1;
    if (t->nbytes) t->data = rd_bytes(r, (size_t)t->nbytes);
    return r->bad;
}

static void reply_set(Reply *reply, uint32_t status, uint32_t code, const char *fmt, va_list args) {
    reply->status = status;
    reply->code = code;
    reply->payload.len = 0;
    buf_vprintf(&reply->payload, fmt, args);
}

void reply_refused(Reply *reply, uint32_t code, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    reply_set(reply, STATUS_REFUSED, code, fmt, args);
    va_end(args);
}

void reply_bad_request(Reply *reply, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    reply_set(reply, STATUS_BAD_REQUEST, 0, fmt, args);
    va_end(args);
}

static wchar_t exe_dir[MAX_PATH];

const wchar_t *bridge_dir(void) { return exe_dir; }

static int read_exact(HANDLE in, void *into, size_t n) {
    uint8_t *at = into;
    while (n) {
        DWORD chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n, got = 0;
        if (!ReadFile(in, at, chunk, &got, NULL) || got == 0) return 1;
        at += got;
        n -= got;
    }
    return 0;
}

static int write_exact(HANDLE out, const void *from, size_t n) {
    const uint8_t *at = from;
    while (n) {
        DWORD chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n, put = 0;
        if (!WriteFile(out, at, chunk, &put, NULL) || put == 0) return 1;
        at += put;
        n -= put;
    }
    return 0;
}

int main(void) {
    /* Pipes, not a console: raw handles, so that no CRLF translation touches the frames. */
    HANDLE in = GetStdHandle(STD_INPUT_HANDLE), out = GetStdHandle(STD_OUTPUT_HANDLE);
    DWORD n = GetModuleFileNameW(NULL, exe_dir, MAX_PATH);
    while (n && exe_dir[n - 1] != L'\\') n--;
    exe_dir[n] = 0;
    for (;;) {
        uint32_t head[2];
        uint64_t length;
        if (read_exact(in, head, 8) || read_exact(in, &length, 8)) return 0; /* end of input */
        if (head[0] != BRIDGE_MAGIC) {
            fprintf(stderr, "bridge: bad frame magic 0x%08x\n", head[0]);
            return 2;
        }
        uint8_t *payload = malloc(length ? (size_t)length : 1);
        if (!payload || read_exact(in, payload, (size_t)length)) return 2;
        if (head[1] == OP_QUIT) return 0;
        Reader request = {payload, (size_t)length, 0};
        Reply reply = {STATUS_OK, 0, {0}};
        switch (head[1]) {
        case OP_ORT_INFO: ort_info(&reply); break;
        case OP_ORT_RUN: ort_run(&request, &reply); break;
        case OP_DML_INFO: dml_info(&reply); break;
        case OP_DML_RUN: dml_run(&request, &reply); break;
        default: reply_bad_request(&reply, "unknown op %u", head[1]);
        }
        free(payload);
        uint32_t reply_head[4] = {BRIDGE_MAGIC, reply.status, reply.code, 0};
        uint64_t reply_length = reply.payload.len;
        if (write_exact(out, reply_head, 16) || write_exact(out, &reply_length, 8) ||
            write_exact(out, reply.payload.data, reply.payload.len))
            return 2;
        buf_free(&reply.payload);
    }
}
