/* The ONNX Runtime half of the bridge: OP_ORT_INFO and OP_ORT_RUN (see bridge.h).
 *
 * onnxruntime.dll (the onnxruntime-directml wheel's) is loaded at run time from the bridge's
 * own folder; nothing of ONNX Runtime is linked at build time and no ONNX Runtime header is
 * used. The C API is reached the documented way, OrtGetApiBase()->GetApi(version), which hands
 * back the OrtApi table: a struct of function pointers whose order is ONNX Runtime's stable C
 * ABI (it only grows at the end). This file declares its own view of that table: an array of
 * pointers read at the ordinals below, each cast to a signature written here.
 *
 * The ordinals were counted from the OrtApi struct in ONNX Runtime's public header
 * include/onnxruntime/core/session/onnxruntime_c_api.h (the revision with ORT_API_VERSION 24),
 * cross-checked against the "Size of version N API cannot change" slot assertions in
 * onnxruntime/core/session/onnxruntime_c_api.cc (versions 1..23 agree with the count), and
 * checked against onnxruntime.dll 1.24.4 itself: its GetApi(24) table has 415 entries, slot 404
 * answers a NULL call as GetCompatibilityInfoFromModel and slot 406 as CreateEnvWithOptions.
 * Those two probes are repeated at load time (see ort_load), because ONNX Runtime's main branch
 * lays out the version-24 tail differently (there, onnxruntime_c_api.cc asserts that
 * RunOptionsSetSyncStream is slot 411, while 1.24.4 has it at 413): the slots from 404 on are
 * only trusted when the DLL proves that it has the 1.24.x layout.
 *
 * Placement proof: the session is created with "session.record_ep_graph_assignment_info" = "1"
 * and ONNX Runtime's own record of which execution provider each node went to is read with
 * Session_GetEpGraphAssignmentInfo (API version 24, ONNX Runtime 1.24). */
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "bridge.h"

/* ---- Our own minimal declarations of the ONNX Runtime C API ------------------------------ */

#define ORT_CALL __stdcall /* what the header uses on Windows (a no-op on x64) */

/* The lowest API version that has every function used here (Session_GetEpGraphAssignmentInfo
 * and the EpAssigned* accessors arrived in 24); an older DLL answers GetApi(24) with NULL. */
#define ORT_API_REQUESTED 24

typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtValue OrtValue;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtEpAssignedSubgraph OrtEpAssignedSubgraph;
typedef struct OrtEpAssignedNode OrtEpAssignedNode;

typedef struct {
    const void *const *(ORT_CALL *GetApi)(uint32_t version);
    const char *(ORT_CALL *GetVersionString)(void);
} OrtApiBaseView;

/* Enum values used here, as the header defines them. */
enum { ORT_FAIL_CODE = 1 };                          /* OrtErrorCode ORT_FAIL */
enum { LOGGING_WARNING = 2 };                        /* OrtLoggingLevel ORT_LOGGING_LEVEL_WARNING */
enum { EXECUTION_SEQUENTIAL = 0 };                   /* ExecutionMode ORT_SEQUENTIAL */
enum { ALLOCATOR_ARENA = 1 };                        /* OrtAllocatorType OrtArenaAllocator */
enum { MEMTYPE_DEFAULT = 0 };                        /* OrtMemType OrtMemTypeDefault */
/* ONNXTensorElementDataType uses the ONNX TensorProto numbering, the same as bridge.h's ELEM_*. */

/* OrtApi slots (0-based), with the name each slot has in onnxruntime_c_api.h. */
enum {
    SLOT_GetErrorCode = 1,                        /* OrtErrorCode GetErrorCode(const OrtStatus*) */
    SLOT_GetErrorMessage = 2,                     /* const char* GetErrorMessage(const OrtStatus*) */
    SLOT_CreateEnv = 3,                           /* CreateEnv */
    SLOT_CreateSessionFromArray = 8,              /* CreateSessionFromArray */
    SLOT_Run = 9,                                 /* Run */
    SLOT_CreateSessionOptions = 10,               /* CreateSessionOptions */
    SLOT_SetSessionExecutionMode = 13,            /* SetSessionExecutionMode */
    SLOT_DisableMemPattern = 17,                  /* DisableMemPattern */
    SLOT_CreateTensorWithDataAsOrtValue = 49,     /* CreateTensorWithDataAsOrtValue */
    SLOT_GetTensorMutableData = 51,               /* GetTensorMutableData */
    SLOT_GetTensorElementType = 60,               /* GetTensorElementType */
    SLOT_GetDimensionsCount = 61,                 /* GetDimensionsCount */
    SLOT_GetDimensions = 62,                      /* GetDimensions */
    SLOT_GetTensorTypeAndShape = 65,              /* GetTensorTypeAndShape */
    SLOT_CreateCpuMemoryInfo = 69,                /* CreateCpuMemoryInfo */
    SLOT_ReleaseStatus = 93,                      /* ReleaseStatus */
    SLOT_ReleaseSession = 95,                     /* ReleaseSession */
    SLOT_ReleaseValue = 96,                       /* ReleaseValue */
    SLOT_ReleaseTensorTypeAndShapeInfo = 99,      /* ReleaseTensorTypeAndShapeInfo */
    SLOT_ReleaseSessionOptions = 100,             /* ReleaseSessionOptions */
    SLOT_GetAvailableProviders = 125,             /* GetAvailableProviders */
    SLOT_ReleaseAvailableProviders = 126,         /* ReleaseAvailableProviders */
    SLOT_AddSessionConfigEntry = 130,             /* AddSessionConfigEntry */
    SLOT_GetCompatibilityInfoFromModel = 404,     /* used only as a layout probe */
    SLOT_CreateEnvWithOptions = 406,              /* used only as a layout probe */
    SLOT_Session_GetEpGraphAssignmentInfo = 407,  /* Session_GetEpGraphAssignmentInfo */
    SLOT_EpAssignedSubgraph_GetEpName = 408,      /* EpAssignedSubgraph_GetEpName */
    SLOT_EpAssignedSubgraph_GetNodes = 409,       /* EpAssignedSubgraph_GetNodes */
    SLOT_EpAssignedNode_GetName = 410,            /* EpAssignedNode_GetName */
    SLOT_EpAssignedNode_GetDomain = 411,          /* EpAssignedNode_GetDomain */
    SLOT_EpAssignedNode_GetOperatorType = 412,    /* EpAssignedNode_GetOperatorType */
};

static struct {
    int tried;              /* ort_load ran (it runs once per process) */
    int ok;                 /* ... and succeeded */
    uint32_t fail_code;     /* ... or failed with this code */
    char fail_text[1024];   /* ... and this text */
    HMODULE dll;
    const char *version;
    OrtEnv *env;            /* kept for the life of the process */
    OrtMemoryInfo *cpu;     /* CPU memory info for every tensor we hand in */

    int(ORT_CALL *GetErrorCode)(const OrtStatus *);
    const char *(ORT_CALL *GetErrorMessage)(const OrtStatus *);
    OrtStatus *(ORT_CALL *CreateEnv)(int level, const char *logid, OrtEnv **out);
    OrtStatus *(ORT_CALL *CreateSessionFromArray)(const OrtEnv *, const void *model, size_t len,
                                                  const OrtSessionOptions *, OrtSession **out);
    OrtStatus *(ORT_CALL *Run)(OrtSession *, const OrtRunOptions *, const char *const *in_names,
                               const OrtValue *const *inputs, size_t n_in,
                               const char *const *out_names, size_t n_out, OrtValue **outputs);
    OrtStatus *(ORT_CALL *CreateSessionOptions)(OrtSessionOptions **out);
    OrtStatus *(ORT_CALL *SetSessionExecutionMode)(OrtSessionOptions *, int mode);
    OrtStatus *(ORT_CALL *DisableMemPattern)(OrtSessionOptions *);
    OrtStatus *(ORT_CALL *CreateTensorWithDataAsOrtValue)(const OrtMemoryInfo *, void *data,
                                                          size_t data_len, const int64_t *shape,
                                                          size_t rank, int elem_type,
                                                          OrtValue **out);
    OrtStatus *(ORT_CALL *GetTensorMutableData)(OrtValue *, void **out);
    OrtStatus *(ORT_CALL *GetTensorElementType)(const OrtTensorTypeAndShapeInfo *, int *out);
    OrtStatus *(ORT_CALL *GetDimensionsCount)(const OrtTensorTypeAndShapeInfo *, size_t *out);
    OrtStatus *(ORT_CALL *GetDimensions)(const OrtTensorTypeAndShapeInfo *, int64_t *dims,
                                         size_t n);
    OrtStatus *(ORT_CALL *GetTensorTypeAndShape)(const OrtValue *, OrtTensorTypeAndShapeInfo **);
    OrtStatus *(ORT_CALL *CreateCpuMemoryInfo)(int allocator_type, int mem_type,
                                               OrtMemoryInfo **out);
    void(ORT_CALL *ReleaseStatus)(OrtStatus *);
    void(ORT_CALL *ReleaseSession)(OrtSession *);
    void(ORT_CALL *ReleaseValue)(OrtValue *);
    void(ORT_CALL *ReleaseTensorTypeAndShapeInfo)(OrtTensorTypeAndShapeInfo *);
    void(ORT_CALL *ReleaseSessionOptions)(OrtSessionOptions *);
    OrtStatus *(ORT_CALL *GetAvailableProviders)(char ***out, int *count);
    OrtStatus *(ORT_CALL *ReleaseAvailableProviders)(char **list, int count);
    OrtStatus *(ORT_CALL *AddSessionConfigEntry)(OrtSessionOptions *, const char *key,
                                                 const char *value);
    OrtStatus *(ORT_CALL *Session_GetEpGraphAssignmentInfo)(
        const OrtSession *, const OrtEpAssignedSubgraph *const **subgraphs, size_t *count);
    OrtStatus *(ORT_CALL *EpAssignedSubgraph_GetEpName)(const OrtEpAssignedSubgraph *,
                                                        const char **out);
    OrtStatus *(ORT_CALL *EpAssignedSubgraph_GetNodes)(const OrtEpAssignedSubgraph *,
                                                       const OrtEpAssignedNode *const **nodes,
                                                       size_t *count);
    OrtStatus *(ORT_CALL *EpAssignedNode_GetName)(const OrtEpAssignedNode *, const char **out);
    OrtStatus *(ORT_CALL *EpAssignedNode_GetDomain)(const OrtEpAssignedNode *, const char **out);
    OrtStatus *(ORT_CALL *EpAssignedNode_GetOperatorType)(const OrtEpAssignedNode *,
                                                          const char **out);
    /* Exported by onnxruntime.dll (dml_provider_factory.h), not part of OrtApi. */
    OrtStatus *(ORT_CALL *AppendDml)(OrtSessionOptions *, int device_id);
} ort;

/* ---- Helpers ---------------------------------------------------------------------------- */

/* If `st` is an error: reply refused with its code and text, naming `call`; release it. */
static int ort_failed(Reply *reply, OrtStatus *st, const char *call) {
    if (!st) return 0;
    reply_refused(reply, (uint32_t)ort.GetErrorCode(st), "%s: %s", call, ort.GetErrorMessage(st));
    ort.ReleaseStatus(st);
    return 1;
}

static void load_fail(uint32_t code, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(ort.fail_text, sizeof ort.fail_text, fmt, args);
    va_end(args);
    ort.fail_code = code;
}

/* Calls a probe slot with NULL arguments (each probed function checks them and returns an error
 * status); returns 1 when the status text names `expect`. */
static int probe_slot(const void *const *api, int slot, const char *expect, char *seen,
                      size_t seen_size) {
    OrtStatus *(ORT_CALL *fn)(void *, void *, void *, void *) =
        (OrtStatus * (ORT_CALL *)(void *, void *, void *, void *)) api[slot];
    OrtStatus *st = fn(NULL, NULL, NULL, NULL);
    if (!st) {
        snprintf(seen, seen_size, "slot %d returned success", slot);
        return 0;
    }
    snprintf(seen, seen_size, "slot %d said \"%s\"", slot, ort.GetErrorMessage(st));
    int ok = strstr(ort.GetErrorMessage(st), expect) != NULL;
    ort.ReleaseStatus(st);
    return ok;
}

#define TAKE(name) (*(void **)&ort.name = (void *)api[SLOT_##name])

/* Loads onnxruntime.dll once per process; 0 when ready, else replies refused. */
static int ort_load(Reply *reply) {
    if (ort.tried) {
        if (!ort.ok) reply_refused(reply, ort.fail_code, "%s", ort.fail_text);
        return !ort.ok;
    }
    ort.tried = 1;

    wchar_t path[MAX_PATH + 64];
    _snwprintf(path, sizeof path / sizeof path[0], L"%lsonnxruntime.dll", bridge_dir());
    path[sizeof path / sizeof path[0] - 1] = 0;
    /* Altered search path: the DLL's own dependencies (DirectML.dll, ...) come from its folder. */
    ort.dll = LoadLibraryExW(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    if (!ort.dll) {
        DWORD err = GetLastError();
        load_fail((uint32_t)HRESULT_FROM_WIN32(err), "LoadLibrary(%ls): Windows error %lu", path,
                  (unsigned long)err);
        goto out;
    }
    const OrtApiBaseView *(ORT_CALL *get_base)(void) =
        (const OrtApiBaseView *(ORT_CALL *)(void))(void *)GetProcAddress(ort.dll, "OrtGetApiBase");
    if (!get_base) {
        load_fail((uint32_t)HRESULT_FROM_WIN32(GetLastError()),
                  "GetProcAddress(OrtGetApiBase): not exported by %ls", path);
        goto out;
    }
    const OrtApiBaseView *base = get_base();
    ort.version = base ? base->GetVersionString() : NULL;
    if (!ort.version) ort.version = "?";
    const void *const *api = base ? base->GetApi(ORT_API_REQUESTED) : NULL;
    if (!api) {
        load_fail(ORT_FAIL_CODE,
                  "GetApi(%d): ONNX Runtime %s does not offer C API version %d (ONNX Runtime 1.%d "
                  "or newer is needed)",
                  ORT_API_REQUESTED, ort.version, ORT_API_REQUESTED, ORT_API_REQUESTED);
        goto out;
    }
    ort.AppendDml = (OrtStatus * (ORT_CALL *)(OrtSessionOptions *, int))(void *)GetProcAddress(
        ort.dll, "OrtSessionOptionsAppendExecutionProvider_DML");

    TAKE(GetErrorCode);
    TAKE(GetErrorMessage);
    TAKE(CreateEnv);
    TAKE(CreateSessionFromArray);
    TAKE(Run);
    TAKE(CreateSessionOptions);
    TAKE(SetSessionExecutionMode);
    TAKE(DisableMemPattern);
    TAKE(CreateTensorWithDataAsOrtValue);
    TAKE(GetTensorMutableData);
    TAKE(GetTensorElementType);
    TAKE(GetDimensionsCount);
    TAKE(GetDimensions);
    TAKE(GetTensorTypeAndShape);
    TAKE(CreateCpuMemoryInfo);
    TAKE(ReleaseStatus);
    TAKE(ReleaseSession);
    TAKE(ReleaseValue);
    TAKE(ReleaseTensorTypeAndShapeInfo);
    TAKE(ReleaseSessionOptions);
    TAKE(GetAvailableProviders);
    TAKE(ReleaseAvailableProviders);
    TAKE(AddSessionConfigEntry);
    TAKE(Session_GetEpGraphAssignmentInfo);
    TAKE(EpAssignedSubgraph_GetEpName);
    TAKE(EpAssignedSubgraph_GetNodes);
    TAKE(EpAssignedNode_GetName);
    TAKE(EpAssignedNode_GetDomain);
    TAKE(EpAssignedNode_GetOperatorType);

    /* The version-24 tail of the table: trust it only if the DLL shows the 1.24.x layout. */
    /* Slot 406 is probed only once 404 has answered as expected: in another layout it may be a
     * function that does not check its arguments. */
    char seen404[512], seen406[512] = "slot 406 not probed";
    int layout_ok = probe_slot(api, SLOT_GetCompatibilityInfoFromModel,
                               "GetCompatibilityInfoFromModel", seen404, sizeof seen404) &&
                    probe_slot(api, SLOT_CreateEnvWithOptions, "CreateEnvWithOptions", seen406,
                               sizeof seen406);
    if (!layout_ok) {
        load_fail(ORT_FAIL_CODE,
                  "ONNX Runtime %s: its OrtApi table (version %d) is not laid out as in 1.24.x, so "
                  "Session_GetEpGraphAssignmentInfo cannot be found safely (%s; %s)",
                  ort.version, ORT_API_REQUESTED, seen404, seen406);
        goto out;
    }

    OrtStatus *st = ort.CreateEnv(LOGGING_WARNING, "topk-bridge", &ort.env);
    if (st) {
        load_fail((uint32_t)ort.GetErrorCode(st), "CreateEnv: %s", ort.GetErrorMessage(st));
        ort.ReleaseStatus(st);
        goto out;
    }
    st = ort.CreateCpuMemoryInfo(ALLOCATOR_ARENA, MEMTYPE_DEFAULT, &ort.cpu);
    if (st) {
        load_fail((uint32_t)ort.GetErrorCode(st), "CreateCpuMemoryInfo: %s",
                  ort.GetErrorMessage(st));
        ort.ReleaseStatus(st);
        goto out;
    }
    ort.ok = 1;
out:
    if (!ort.ok) reply_refused(reply, ort.fail_code, "%s", ort.fail_text);
    return !ort.ok;
}

/* ---- OP_ORT_INFO ------------------------------------------------------------------------ */

void ort_info(Reply *reply) {
    if (ort_load(reply)) return;
    char **list = NULL;
    int count = 0;
    if (ort_failed(reply, ort.GetAvailableProviders(&list, &count), "GetAvailableProviders"))
        return;
    buf_printf(&reply->payload, "bridge=%s\n", BRIDGE_VERSION);
    buf_printf(&reply->payload, "onnxruntime=%s\n", ort.version);
    buf_printf(&reply->payload, "api_version=%d\n", ORT_API_REQUESTED);
    buf_printf(&reply->payload, "providers=");
    for (int i = 0; i < count; i++) {
        if (i) buf_printf(&reply->payload, ",");
        buf_bytes(&reply->payload, list[i], strlen(list[i]));
    }
    buf_printf(&reply->payload, "\n");
    OrtStatus *st = ort.ReleaseAvailableProviders(list, count);
    if (st) ort.ReleaseStatus(st); /* documented never to fail */
}

/* ---- Sessions and their cache ----------------------------------------------------------- */

#define CACHE_SLOTS 32

typedef struct {
    char *key;           /* NULL: slot free */
    uint64_t model_hash; /* FNV-1a of the model bytes, so a reused key with a new model rebuilds */
    uint64_t model_len;
    uint32_t fallback;   /* made with CPU fallback allowed */
    OrtSession *session;
    char *placement;     /* ONNX Runtime's assignment record, formatted once per session */
    uint64_t last_used;
} CachedSession;

static CachedSession cache[CACHE_SLOTS];
static uint64_t cache_clock;

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void session_free(OrtSession *session, char *placement) {
    if (session) ort.ReleaseSession(session);
    free(placement);
}

/* Formats ONNX Runtime's record of the provider each node was assigned to: every TopK node
 * first ("TopK:<node name>=<provider>;"), then every other node ("<OpType>:<name>=<provider>;",
 * with "<domain>." before OpType outside the ONNX domain). NULL after replying refused. */
static char *placement_record(OrtSession *session, Reply *reply) {
    const OrtEpAssignedSubgraph *const *subgraphs = NULL;
    size_t n_sub = 0;
    if (ort_failed(reply, ort.Session_GetEpGraphAssignmentInfo(session, &subgraphs, &n_sub),
                   "Session_GetEpGraphAssignmentInfo"))
        return NULL;
    Buf out[2] = {{0}, {0}}; /* [0] TopK nodes, [1] the others */
    for (size_t s = 0; s < n_sub; s++) {
        const char *ep = NULL;
        const OrtEpAssignedNode *const *nodes = NULL;
        size_t n_nodes = 0;
        if (ort_failed(reply, ort.EpAssignedSubgraph_GetEpName(subgraphs[s], &ep),
                       "EpAssignedSubgraph_GetEpName") ||
            ort_failed(reply, ort.EpAssignedSubgraph_GetNodes(subgraphs[s], &nodes, &n_nodes),
                       "EpAssignedSubgraph_GetNodes"))
            goto fail;
        for (size_t i = 0; i < n_nodes; i++) {
            const char *name = NULL, *domain = NULL, *op = NULL;
            if (ort_failed(reply, ort.EpAssignedNode_GetName(nodes[i], &name),
                           "EpAssignedNode_GetName") ||
                ort_failed(reply, ort.EpAssignedNode_GetDomain(nodes[i], &domain),
                           "EpAssignedNode_GetDomain") ||
                ort_failed(reply, ort.EpAssignedNode_GetOperatorType(nodes[i], &op),
                           "EpAssignedNode_GetOperatorType"))
                goto fail;
            if (!name) name = "";
            if (!op) op = "";
            if (!ep) ep = "";
            int onnx_domain = !domain || !*domain || !strcmp(domain, "ai.onnx");
            Buf *b = &out[!(onnx_domain && !strcmp(op, "TopK"))];
            if (!onnx_domain) {
                buf_bytes(b, domain, strlen(domain));
                buf_bytes(b, ".", 1);
            }
            buf_bytes(b, op, strlen(op));
            buf_bytes(b, ":", 1);
            buf_bytes(b, name, strlen(name));
            buf_bytes(b, "=", 1);
            buf_bytes(b, ep, strlen(ep));
            buf_bytes(b, ";", 1);
        }
    }
    buf_bytes(&out[0], out[1].data ? (const char *)out[1].data : "", out[1].len);
    buf_bytes(&out[0], "", 1); /* NUL */
    buf_free(&out[1]);
    return (char *)out[0].data;
fail:
    buf_free(&out[0]);
    buf_free(&out[1]);
    return NULL;
}

/* The session options every session is created with, built on first use and kept for the life
 * of the process. Appending the DirectML provider creates its Direct3D 12 and DirectML devices
 * (about 0.2 s on lavapipe); the provider factory then lends those devices to every session
 * created from these options. One set of options per session instead both costs the 0.2 s per
 * session and, under Wine 8 with vkd3d on lavapipe, leaks 25-50 kB per session. */
static OrtSessionOptions *shared_options[2]; /* without, and with, CPU fallback */

static int options_get(uint32_t fallback, Reply *reply) {
    if (shared_options[fallback]) return 0;
    if (!ort.AppendDml) {
        reply_refused(reply, ORT_FAIL_CODE,
                      "GetProcAddress(OrtSessionOptionsAppendExecutionProvider_DML): onnxruntime.dll "
                      "%s does not export it (not a DirectML build)",
                      ort.version);
        return 1;
    }
    OrtSessionOptions *options = NULL;
    if (ort_failed(reply, ort.CreateSessionOptions(&options), "CreateSessionOptions")) return 1;
    int bad =
        /* DirectML requires both of these. */
        ort_failed(reply, ort.DisableMemPattern(options), "DisableMemPattern") ||
        ort_failed(reply, ort.SetSessionExecutionMode(options, EXECUTION_SEQUENTIAL),
                   "SetSessionExecutionMode") ||
        /* A node DirectML will not take fails session creation instead of running on the CPU
         * (a user's whole model: it runs on the CPU, and the placement record says so). */
        ort_failed(reply,
                   ort.AddSessionConfigEntry(options, "session.disable_cpu_ep_fallback",
                                             fallback ? "0" : "1"),
                   "AddSessionConfigEntry(session.disable_cpu_ep_fallback)") ||
        /* Keeps ONNX Runtime's record of node placement for Session_GetEpGraphAssignmentInfo. */
        ort_failed(reply,
                   ort.AddSessionConfigEntry(options, "session.record_ep_graph_assignment_info",
                                             "1"),
                   "AddSessionConfigEntry(session.record_ep_graph_assignment_info)") ||
        ort_failed(reply, ort.AppendDml(options, 0),
                   "OrtSessionOptionsAppendExecutionProvider_DML(device 0)");
    if (bad) {
        ort.ReleaseSessionOptions(options);
        return 1;
    }
    shared_options[fallback] = options;
    return 0;
}

/* Creates a DirectML session from the model bytes; 0 on success, else replies refused. */
static int session_create(const uint8_t *model, size_t model_len, uint32_t fallback,
                          OrtSession **session_out, char **placement_out, Reply *reply) {
    *session_out = NULL;
    *placement_out = NULL;
    if (options_get(fallback, reply)) return 1;
    OrtSession *session = NULL;
    if (ort_failed(reply,
                   ort.CreateSessionFromArray(ort.env, model, model_len, shared_options[fallback],
                                              &session),
                   "CreateSessionFromArray")) {
        if (session) ort.ReleaseSession(session);
        return 1;
    }
    char *placement = placement_record(session, reply);
    if (!placement) {
        ort.ReleaseSession(session);
        return 1;
    }
    *session_out = session;
    *placement_out = placement;
    return 0;
}

/* The session for `key` (kept in the cache unless the key is empty). `*owned` is set when the
 * caller must release it. 0 on success, else replies refused. */
static int session_get(const char *key, const uint8_t *model, size_t model_len, uint32_t fallback,
                       OrtSession **session, const char **placement, int *owned, Reply *reply) {
    uint64_t hash = fnv1a(model, model_len);
    *owned = 0;
    if (*key) {
        for (int i = 0; i < CACHE_SLOTS; i++) {
            CachedSession *c = &cache[i];
            if (!c->key || strcmp(c->key, key)) continue;
            if (c->model_hash == hash && c->model_len == model_len && c->fallback == fallback) {
                c->last_used = ++cache_clock;
                *session = c->session;
                *placement = c->placement;
                return 0;
            }
            /* Same key, different model: drop the stale session. */
            session_free(c->session, c->placement);
            free(c->key);
            memset(c, 0, sizeof *c);
        }
    }
    OrtSession *created;
    char *record;
    if (session_create(model, model_len, fallback, &created, &record, reply)) return 1;
    char *key_copy = *key ? _strdup(key) : NULL;
    if (!key_copy) { /* not kept */
        *session = created;
        *placement = record;
        *owned = 1;
        return 0;
    }
    CachedSession *slot = &cache[0];
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (!cache[i].key) {
            slot = &cache[i];
            break;
        }
        if (cache[i].last_used < slot->last_used) slot = &cache[i];
    }
    if (slot->key) { /* evict the least recently used */
        session_free(slot->session, slot->placement);
        free(slot->key);
    }
    slot->key = key_copy;
    slot->model_hash = hash;
    slot->model_len = model_len;
    slot->fallback = fallback;
    slot->session = created;
    slot->placement = record;
    slot->last_used = ++cache_clock;
    *session = created;
    *placement = record;
    return 0;
}

/* ---- OP_ORT_RUN ------------------------------------------------------------------------- */

#define MAX_VALUES 4096

typedef struct {
    char *name;
    Tensor t;
    uint32_t preallocate;
    uint64_t nbytes;     /* the byte count the shape implies */
    void *buffer;        /* our copy (inputs) or sentinel-filled buffer (preallocated outputs) */
    OrtValue *value;
} Slot;

/* Bytes implied by a shape; 0 on success, 1 if a dim is negative or the count overflows. */
static int shape_bytes(uint32_t elem_type, uint32_t rank, const int64_t *dims, uint64_t *out) {
    uint64_t n = elem_size(elem_type);
    for (uint32_t i = 0; i < rank; i++) {
        if (dims[i] < 0 || __builtin_mul_overflow(n, (uint64_t)dims[i], &n)) return 1;
    }
    if (n > (uint64_t)SIZE_MAX / 2) return 1;
    *out = n;
    return 0;
}

static void *aligned_buffer(uint64_t nbytes) {
    /* Never NULL for an empty tensor: ONNX Runtime gets a valid (unused) address. */
    return _aligned_malloc(nbytes ? (size_t)nbytes : 64, 64);
}

static void slots_free(Slot *slots, uint32_t n) {
    if (!slots) return;
    for (uint32_t i = 0; i < n; i++) {
        if (slots[i].value) ort.ReleaseValue(slots[i].value);
        _aligned_free(slots[i].buffer);
        free(slots[i].name);
    }
    free(slots);
}

/* Appends one output OrtValue to the reply as a tensor; 0 on success, else replies refused. */
static int put_output(Buf *out, const char *name, OrtValue *value, Reply *reply) {
    OrtTensorTypeAndShapeInfo *info = NULL;
    if (ort_failed(reply, ort.GetTensorTypeAndShape(value, &info), "GetTensorTypeAndShape"))
        return 1;
    int type = 0;
    size_t rank = 0;
    int64_t dims[MAX_RANK];
    int bad = ort_failed(reply, ort.GetTensorElementType(info, &type), "GetTensorElementType") ||
              ort_failed(reply, ort.GetDimensionsCount(info, &rank), "GetDimensionsCount");
    if (!bad && rank > MAX_RANK) {
        reply_refused(reply, ORT_FAIL_CODE, "output %s has rank %zu, more than the bridge's %d",
                      name, rank, MAX_RANK);
        bad = 1;
    }
    if (!bad) bad = ort_failed(reply, ort.GetDimensions(info, dims, rank), "GetDimensions");
    ort.ReleaseTensorTypeAndShapeInfo(info);
    if (bad) return 1;
    uint64_t nbytes = 0;
    if (type <= 0 || !elem_size((uint32_t)type)) {
        reply_refused(reply, ORT_FAIL_CODE,
                      "output %s has ONNX element type %d, which the bridge cannot carry", name,
                      type);
        return 1;
    }
    if (shape_bytes((uint32_t)type, (uint32_t)rank, dims, &nbytes)) {
        reply_refused(reply, ORT_FAIL_CODE, "output %s has an unusable shape", name);
        return 1;
    }
    void *data = NULL;
    if (nbytes && ort_failed(reply, ort.GetTensorMutableData(value, &data), "GetTensorMutableData"))
        return 1;
    if (nbytes && !data) {
        reply_refused(reply, ORT_FAIL_CODE, "GetTensorMutableData: no data for output %s", name);
        return 1;
    }
    buf_tensor(out, (uint32_t)type, (uint32_t)rank, dims, data, nbytes);
    return 0;
}

void ort_run(Reader *request, Reply *reply) {
    char *key = NULL;
    Slot *ins = NULL, *outs = NULL;
    uint32_t n_in = 0, n_out = 0;
    const char **in_names = NULL, **out_names = NULL;
    const OrtValue **in_values = NULL;
    OrtValue **out_values = NULL;
    OrtSession *session = NULL;
    const char *placement = NULL;
    int owned = 0;

    /* Read the whole request before touching ONNX Runtime. */
    key = rd_str(request);
    uint64_t model_len = rd_u64(request);
    const uint8_t *model =
        request->bad || model_len > request->left ? NULL : rd_bytes(request, (size_t)model_len);
    if (!key || !model) {
        reply_bad_request(reply, "ort_run: truncated request (cache key or model)");
        goto done;
    }
    /* In the key, not a field of its own: the request's layout stays what the findings'
     * standalone repros send. */
    uint32_t fallback = !strncmp(key, "cpu-fallback:", 13);
    n_in = rd_u32(request);
    if (request->bad || n_in > MAX_VALUES) {
        reply_bad_request(reply, "ort_run: bad input count %u", n_in);
        n_in = 0;
        goto done;
    }
    ins = calloc(n_in ? n_in : 1, sizeof *ins);
    if (!ins) {
        reply_bad_request(reply, "ort_run: out of memory");
        n_in = 0;
        goto done;
    }
    for (uint32_t i = 0; i < n_in; i++) {
        ins[i].name = rd_str(request);
        if (!ins[i].name || rd_tensor(request, &ins[i].t)) {
            reply_bad_request(reply, "ort_run: truncated input %u", i);
            goto done;
        }
        Tensor *t = &ins[i].t;
        if (!elem_size(t->elem_type)) {
            reply_bad_request(reply, "ort_run: input %s has unknown element type %u",
                              ins[i].name, t->elem_type);
            goto done;
        }
        if (shape_bytes(t->elem_type, t->rank, t->dims, &ins[i].nbytes) ||
            ins[i].nbytes != t->nbytes) {
            reply_bad_request(reply, "ort_run: input %s has %llu bytes, its shape needs %llu",
                              ins[i].name, (unsigned long long)t->nbytes,
                              (unsigned long long)ins[i].nbytes);
            goto done;
        }
    }
    n_out = rd_u32(request);
    if (request->bad || n_out > MAX_VALUES) {
        reply_bad_request(reply, "ort_run: bad output count %u", n_out);
        n_out = 0;
        goto done;
    }
    outs = calloc(n_out ? n_out : 1, sizeof *outs);
    if (!outs) {
        reply_bad_request(reply, "ort_run: out of memory");
        n_out = 0;
        goto done;
    }
    for (uint32_t i = 0; i < n_out; i++) {
        outs[i].name = rd_str(request);
        outs[i].preallocate = rd_u32(request);
        if (!outs[i].name || rd_tensor(request, &outs[i].t)) {
            reply_bad_request(reply, "ort_run: truncated output %u", i);
            goto done;
        }
        Tensor *t = &outs[i].t;
        if (t->nbytes) {
            reply_bad_request(reply, "ort_run: output spec %s carries bytes", outs[i].name);
            goto done;
        }
        if (outs[i].preallocate &&
            (!elem_size(t->elem_type) ||
             shape_bytes(t->elem_type, t->rank, t->dims, &outs[i].nbytes))) {
            reply_bad_request(reply, "ort_run: output spec %s has an unusable type or shape",
                              outs[i].name);
            goto done;
        }
    }
    if (request->left) {
        reply_bad_request(reply, "ort_run: %zu bytes after the request", request->left);
        goto done;
    }

    if (ort_load(reply)) goto done;
    if (session_get(key, model, (size_t)model_len, fallback, &session, &placement, &owned, reply)) goto done;

    in_names = calloc(n_in ? n_in : 1, sizeof *in_names);
    in_values = calloc(n_in ? n_in : 1, sizeof *in_values);
    out_names = calloc(n_out ? n_out : 1, sizeof *out_names);
    out_values = calloc(n_out ? n_out : 1, sizeof *out_values);
    if (!in_names || !in_values || !out_names || !out_values) {
        reply_refused(reply, ORT_FAIL_CODE, "ort_run: out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < n_in; i++) {
        Tensor *t = &ins[i].t;
        /* An aligned copy: request bytes sit at any offset, and are freed after the reply. */
        ins[i].buffer = aligned_buffer(t->nbytes);
        if (!ins[i].buffer) {
            reply_refused(reply, ORT_FAIL_CODE, "ort_run: out of memory for input %s",
                          ins[i].name);
            goto done;
        }
        if (t->nbytes) memcpy(ins[i].buffer, t->data, (size_t)t->nbytes);
        if (ort_failed(reply,
                       ort.CreateTensorWithDataAsOrtValue(ort.cpu, ins[i].buffer,
                                                          (size_t)t->nbytes, t->dims, t->rank,
                                                          (int)t->elem_type, &ins[i].value),
                       "CreateTensorWithDataAsOrtValue"))
            goto done;
        in_names[i] = ins[i].name;
        in_values[i] = ins[i].value;
    }
    for (uint32_t i = 0; i < n_out; i++) {
        Tensor *t = &outs[i].t;
        out_names[i] = outs[i].name;
        if (!outs[i].preallocate) continue; /* ONNX Runtime allocates it */
        outs[i].buffer = aligned_buffer(outs[i].nbytes);
        if (!outs[i].buffer) {
            reply_refused(reply, ORT_FAIL_CODE, "ort_run: out of memory for output %s",
                          outs[i].name);
            goto done;
        }
        memset(outs[i].buffer, SENTINEL_BYTE, outs[i].nbytes ? (size_t)outs[i].nbytes : 64);
        if (ort_failed(reply,
                       ort.CreateTensorWithDataAsOrtValue(ort.cpu, outs[i].buffer,
                                                          (size_t)outs[i].nbytes, t->dims, t->rank,
                                                          (int)t->elem_type, &outs[i].value),
                       "CreateTensorWithDataAsOrtValue"))
            goto done;
        out_values[i] = outs[i].value;
    }

    OrtStatus *st = ort.Run(session, NULL, in_names, in_values, n_in, out_names, n_out, out_values);
    /* Whatever Run left in out_values is ours to release, success or not. */
    for (uint32_t i = 0; i < n_out; i++) {
        if (out_values[i] && out_values[i] != outs[i].value) {
            if (outs[i].value) ort.ReleaseValue(outs[i].value);
            outs[i].value = out_values[i];
        }
    }
    if (ort_failed(reply, st, "Run")) goto done;

    buf_u32(&reply->payload, n_out);
    for (uint32_t i = 0; i < n_out; i++) {
        if (!outs[i].value) {
            reply_refused(reply, ORT_FAIL_CODE, "Run: no value for output %s", outs[i].name);
            goto done;
        }
        if (put_output(&reply->payload, outs[i].name, outs[i].value, reply)) goto done;
    }
    buf_str(&reply->payload, placement);

done:
    slots_free(ins, n_in);
    slots_free(outs, n_out);
    free(in_names);
    free(in_values);
    free(out_names);
    free(out_values);
    if (owned) session_free(session, (char *)placement);
    free(key);
}
