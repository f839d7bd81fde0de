/* The DirectML half of the bridge: a D3D12 device, DirectML.dll loaded from beside the .exe,
 * and any DirectML operator run on request, its desc struct laid out from the members the
 * request lists (see bridge.h): the bridge knows no operator.
 *
 * mingw has no directml.h, so the few DirectML types and interfaces used here are declared
 * below from the public API documentation. Everything DirectML says is passed back as it is:
 * a refusal is a result, named by the call that refused and its HRESULT. */
#define COBJMACROS
#include <windows.h>
#include <initguid.h> /* the D3D12/DXGI interface IDs are missing from mingw's libdxguid.a */
#include <d3d12.h>
#include <dxgi1_4.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"

/* ---- DirectML declarations (directml.h) ---- */

/* DML_TENSOR_DATA_TYPE */
enum {
    DML_TENSOR_DATA_TYPE_UNKNOWN = 0, DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
    DML_TENSOR_DATA_TYPE_FLOAT16 = 2, DML_TENSOR_DATA_TYPE_UINT32 = 3,
    DML_TENSOR_DATA_TYPE_UINT16 = 4, DML_TENSOR_DATA_TYPE_UINT8 = 5,
    DML_TENSOR_DATA_TYPE_INT32 = 6, DML_TENSOR_DATA_TYPE_INT16 = 7,
    DML_TENSOR_DATA_TYPE_INT8 = 8, DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
    DML_TENSOR_DATA_TYPE_UINT64 = 10, DML_TENSOR_DATA_TYPE_INT64 = 11
};
enum { DML_TENSOR_TYPE_BUFFER = 1 };
enum { DML_TENSOR_FLAG_NONE = 0 };
enum { DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT = 0, DML_FEATURE_FEATURE_LEVELS = 1 };
enum { DML_BINDING_TYPE_NONE = 0, DML_BINDING_TYPE_BUFFER = 1 };
enum { DML_EXECUTION_FLAG_NONE = 0 };
enum { DML_CREATE_DEVICE_FLAG_NONE = 0 };
enum { DML_FEATURE_LEVEL_1_0 = 0x1000 };

typedef struct {
    UINT DataType;
    UINT Flags;
    UINT DimensionCount;
    const UINT *Sizes;
    const UINT *Strides;
    UINT64 TotalTensorSizeInBytes;
    UINT GuaranteedBaseOffsetAlignment;
} DML_BUFFER_TENSOR_DESC;

typedef struct {
    UINT Type;
    const void *Desc;
} DML_TENSOR_DESC;

typedef struct {
    UINT Type;
    const void *Desc;
} DML_OPERATOR_DESC;

typedef struct { UINT DataType; } DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT;
typedef struct { BOOL IsSupported; } DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT;
typedef struct {
    UINT RequestedFeatureLevelCount;
    const UINT *RequestedFeatureLevels;
} DML_FEATURE_QUERY_FEATURE_LEVELS;
typedef struct { UINT MaxSupportedFeatureLevel; } DML_FEATURE_DATA_FEATURE_LEVELS;

typedef struct {
    UINT RequiredDescriptorCount;
    UINT64 TemporaryResourceSize;
    UINT64 PersistentResourceSize;
} DML_BINDING_PROPERTIES;

typedef struct {
    ID3D12Resource *Buffer;
    UINT64 Offset;
    UINT64 SizeInBytes;
} DML_BUFFER_BINDING;

typedef struct {
    UINT Type;
    const void *Desc;
} DML_BINDING_DESC;

typedef struct IDMLDevice IDMLDevice;
typedef struct IDMLDispatchable IDMLDispatchable; /* compiled operators and initializers */
typedef struct IDMLBindingTable IDMLBindingTable;
typedef struct IDMLCommandRecorder IDMLCommandRecorder;

typedef struct {
    IDMLDispatchable *Dispatchable;
    D3D12_CPU_DESCRIPTOR_HANDLE CPUDescriptorHandle;
    D3D12_GPU_DESCRIPTOR_HANDLE GPUDescriptorHandle;
    UINT SizeInDescriptors;
} DML_BINDING_TABLE_DESC;

/* Vtable prefixes shared along the inheritance chain: IUnknown, IDMLObject, IDMLDeviceChild.
 * Slots this file never calls are left as plain pointers. */
#define DML_IUNKNOWN_SLOTS(T)                                                      \
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(T * self, REFIID riid, void **out); \
    ULONG(STDMETHODCALLTYPE *AddRef)(T * self);                                    \
    ULONG(STDMETHODCALLTYPE *Release)(T * self);
#define DML_OBJECT_SLOTS(T) \
    DML_IUNKNOWN_SLOTS(T)   \
    void *GetPrivateData, *SetPrivateData, *SetPrivateDataInterface, *SetName;
#define DML_DEVICE_CHILD_SLOTS(T) \
    DML_OBJECT_SLOTS(T)           \
    void *GetDevice;

typedef struct {
    DML_OBJECT_SLOTS(IDMLDevice)
    HRESULT(STDMETHODCALLTYPE *CheckFeatureSupport)(IDMLDevice *self, UINT feature,
                                                    UINT query_size, const void *query,
                                                    UINT data_size, void *data);
    HRESULT(STDMETHODCALLTYPE *CreateOperator)(IDMLDevice *self, const DML_OPERATOR_DESC *desc,
                                               REFIID riid, void **out);
    HRESULT(STDMETHODCALLTYPE *CompileOperator)(IDMLDevice *self, IUnknown *op, UINT flags,
                                                REFIID riid, void **out);
    HRESULT(STDMETHODCALLTYPE *CreateOperatorInitializer)(IDMLDevice *self, UINT count,
                                                          IDMLDispatchable *const *ops,
                                                          REFIID riid, void **out);
    HRESULT(STDMETHODCALLTYPE *CreateCommandRecorder)(IDMLDevice *self, REFIID riid, void **out);
    HRESULT(STDMETHODCALLTYPE *CreateBindingTable)(IDMLDevice *self,
                                                   const DML_BINDING_TABLE_DESC *desc,
                                                   REFIID riid, void **out);
    void *Evict, *MakeResident, *GetDeviceRemovedReason, *GetParentDevice;
} IDMLDeviceVtbl;
struct IDMLDevice { const IDMLDeviceVtbl *lpVtbl; };

/* IDMLPageable adds nothing; IDMLDispatchable adds GetBindingProperties. It returns a
 * struct from a C++ member function: under the MSVC x64 ABI the caller passes a hidden result
 * pointer right after `this`, and gets it back. */
typedef struct {
    DML_DEVICE_CHILD_SLOTS(IDMLDispatchable)
    DML_BINDING_PROPERTIES *(STDMETHODCALLTYPE *GetBindingProperties)(
        IDMLDispatchable *self, DML_BINDING_PROPERTIES *result);
} IDMLDispatchableVtbl;
struct IDMLDispatchable { const IDMLDispatchableVtbl *lpVtbl; };

typedef struct {
    DML_DEVICE_CHILD_SLOTS(IDMLBindingTable)
    void(STDMETHODCALLTYPE *BindInputs)(IDMLBindingTable *self, UINT count,
                                        const DML_BINDING_DESC *bindings);
    void(STDMETHODCALLTYPE *BindOutputs)(IDMLBindingTable *self, UINT count,
                                         const DML_BINDING_DESC *bindings);
    void(STDMETHODCALLTYPE *BindTemporaryResource)(IDMLBindingTable *self,
                                                   const DML_BINDING_DESC *binding);
    void(STDMETHODCALLTYPE *BindPersistentResource)(IDMLBindingTable *self,
                                                    const DML_BINDING_DESC *binding);
    void *Reset;
} IDMLBindingTableVtbl;
struct IDMLBindingTable { const IDMLBindingTableVtbl *lpVtbl; };

typedef struct {
    DML_DEVICE_CHILD_SLOTS(IDMLCommandRecorder)
    void(STDMETHODCALLTYPE *RecordDispatch)(IDMLCommandRecorder *self, ID3D12CommandList *list,
                                            IDMLDispatchable *dispatchable,
                                            IDMLBindingTable *bindings);
} IDMLCommandRecorderVtbl;
struct IDMLCommandRecorder { const IDMLCommandRecorderVtbl *lpVtbl; };

typedef HRESULT(WINAPI *DMLCreateDevice1Fn)(ID3D12Device *d3d, UINT flags, UINT min_level,
                                            REFIID riid, void **out);

static const GUID IID_IDMLDevice = {
    0x6dbd6437, 0x96fd, 0x423f, {0xa9, 0x8c, 0xae, 0x5e, 0x7c, 0x2a, 0x57, 0x3f}};
static const GUID IID_IDMLOperator = {
    0x26caae7a, 0x3081, 0x4633, {0x95, 0x81, 0x22, 0x6f, 0xbe, 0x57, 0x69, 0x5d}};
static const GUID IID_IDMLCompiledOperator = {
    0x6b15e56a, 0xbf5c, 0x4902, {0x92, 0xd8, 0xda, 0x3a, 0x65, 0x0a, 0xfe, 0xa4}};
static const GUID IID_IDMLOperatorInitializer = {
    0x427c1113, 0x435c, 0x469c, {0x86, 0x76, 0x4d, 0x5d, 0xd0, 0x72, 0xf8, 0x13}};
static const GUID IID_IDMLBindingTable = {
    0x29c687dc, 0xde74, 0x4e3b, {0xab, 0x00, 0x11, 0x68, 0xf2, 0xfc, 0x3c, 0xfc}};
static const GUID IID_IDMLCommandRecorder = {
    0xe6857a76, 0x2e3e, 0x4fdd, {0xbf, 0xf4, 0x5d, 0x2b, 0xa1, 0x0f, 0xb4, 0x53}};

/* Releases any COM object (every vtable starts with IUnknown's) and clears the pointer. */
#define RELEASE(p)                                                  \
    do {                                                            \
        if (p) ((IUnknown *)(p))->lpVtbl->Release((IUnknown *)(p)); \
        (p) = NULL;                                                 \
    } while (0)

/* ---- Process-wide device state, created lazily and kept ---- */

#define CACHE_SIZE 32
#define CACHE_MAX_BYTES ((uint64_t)256 << 20) /* bigger operators are used once, not kept */
#define FENCE_TIMEOUT_MS 120000

/* A compiled, initialized operator with its buffers and bindings, ready to dispatch again.
 * Keyed by the whole request but the input tensors' bytes (see request_parse). */
typedef struct {
    int used;
    uint64_t last_use;
    uint8_t *key;
    size_t key_len;
    IDMLDispatchable *compiled;
    ID3D12DescriptorHeap *heap;
    IDMLBindingTable *bindings;
    uint32_t n_in, n_out;
    ID3D12Resource *in[DML_MAX_TENSORS], *out[DML_MAX_TENSORS];
    uint64_t in_width[DML_MAX_TENSORS], out_width[DML_MAX_TENSORS]; /* D3D12 buffer sizes */
    uint64_t in_total, out_total; /* the sums of those widths */
    ID3D12Resource *temp, *persistent, *upload, *readback;
} Entry;

static struct {
    int ready;
    int hung; /* the last device was abandoned mid-wait: free nothing that it may still use */
    HMODULE dml_module;
    IDXGIAdapter1 *adapter;
    DXGI_ADAPTER_DESC1 adapter_desc;
    ID3D12Device *d3d;
    D3D_FEATURE_LEVEL d3d_level;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    UINT64 fence_value;
    HANDLE fence_event;
    IDMLDevice *dml;
    IDMLCommandRecorder *recorder;
    UINT descriptor_step;
    uint64_t clock;
    Entry cache[CACHE_SIZE];
} g;

static const char *hr_name(HRESULT hr) {
    switch ((uint32_t)hr) {
    case 0x80070057u: return " (E_INVALIDARG)";
    case 0x80004001u: return " (E_NOTIMPL)";
    case 0x80004005u: return " (E_FAIL)";
    case 0x8007000Eu: return " (E_OUTOFMEMORY)";
    case 0x80004002u: return " (E_NOINTERFACE)";
    case 0x887A0004u: return " (DXGI_ERROR_UNSUPPORTED)";
    case 0x887A0005u: return " (DXGI_ERROR_DEVICE_REMOVED)";
    case 0x887A0006u: return " (DXGI_ERROR_DEVICE_HUNG)";
    case 0x887A0007u: return " (DXGI_ERROR_DEVICE_RESET)";
    case 0x887A0020u: return " (DXGI_ERROR_DRIVER_INTERNAL_ERROR)";
    case 0x887A002Du: return " (DXGI_ERROR_SDK_COMPONENT_MISSING)";
    default: return "";
    }
}

static void refuse(Reply *reply, const char *call, HRESULT hr) {
    reply_refused(reply, (uint32_t)hr, "%s failed: hr=0x%08x%s", call, (unsigned)hr,
                  hr_name(hr));
}

static void entry_free(Entry *e) {
    RELEASE(e->bindings);
    RELEASE(e->heap);
    RELEASE(e->compiled);
    for (uint32_t i = 0; i < DML_MAX_TENSORS; i++) {
        RELEASE(e->in[i]);
        RELEASE(e->out[i]);
    }
    RELEASE(e->temp);
    RELEASE(e->persistent);
    RELEASE(e->upload);
    RELEASE(e->readback);
    free(e->key);
    memset(e, 0, sizeof *e);
}

/* Drops everything but the loaded DirectML.dll, so that the next request starts afresh. */
static void device_down(void) {
    for (int i = 0; i < CACHE_SIZE; i++) entry_free(&g.cache[i]);
    RELEASE(g.recorder);
    RELEASE(g.dml);
    RELEASE(g.list);
    RELEASE(g.allocator);
    RELEASE(g.fence);
    RELEASE(g.queue);
    RELEASE(g.d3d);
    RELEASE(g.adapter);
    if (g.fence_event) CloseHandle(g.fence_event);
    g.fence_event = NULL;
    g.fence_value = 0;
    g.ready = 0;
}

/* After a hung wait the GPU may still use these objects: forget them rather than free them. */
static void device_abandon(void) {
    g.hung = 1;
    memset(g.cache, 0, sizeof g.cache);
    g.recorder = NULL;
    g.dml = NULL;
    g.list = NULL;
    g.allocator = NULL;
    g.fence = NULL;
    g.queue = NULL;
    g.d3d = NULL;
    g.adapter = NULL;
    g.fence_event = NULL;
    g.fence_value = 0;
    g.ready = 0;
}

static void dml_path(wchar_t *path, size_t cap) {
    _snwprintf(path, cap, L"%lsDirectML.dll", bridge_dir());
    path[cap - 1] = 0;
}

/* Creates the device, queue, command list, fence and the DirectML device once; replies and
 * returns nonzero on failure (everything created so far is released: a later call retries). */
static int device_up(Reply *reply) {
    if (g.ready) return 0;
    IDXGIFactory1 *factory = NULL;
    HRESULT hr = CreateDXGIFactory1(&IID_IDXGIFactory1, (void **)&factory);
    if (FAILED(hr)) {
        refuse(reply, "CreateDXGIFactory1", hr);
        return 1;
    }
    /* Adapter 0 is the default adapter, the one D3D12CreateDevice(NULL, ...) would pick. */
    hr = IDXGIFactory1_EnumAdapters1(factory, 0, &g.adapter);
    RELEASE(factory);
    if (FAILED(hr)) {
        refuse(reply, "IDXGIFactory1::EnumAdapters1", hr);
        goto fail;
    }
    hr = IDXGIAdapter1_GetDesc1(g.adapter, &g.adapter_desc);
    if (FAILED(hr)) {
        refuse(reply, "IDXGIAdapter1::GetDesc1", hr);
        goto fail;
    }
    hr = D3D12CreateDevice((IUnknown *)g.adapter, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device,
                           (void **)&g.d3d);
    if (FAILED(hr)) {
        refuse(reply, "D3D12CreateDevice", hr);
        goto fail;
    }
    static const D3D_FEATURE_LEVEL levels[] = {D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_11_1,
                                               D3D_FEATURE_LEVEL_12_0, D3D_FEATURE_LEVEL_12_1};
    D3D12_FEATURE_DATA_FEATURE_LEVELS fl = {ARRAYSIZE(levels), levels, 0};
    g.d3d_level = SUCCEEDED(ID3D12Device_CheckFeatureSupport(g.d3d, D3D12_FEATURE_FEATURE_LEVELS,
                                                             &fl, sizeof fl))
                      ? fl.MaxSupportedFeatureLevel
                      : 0;

    D3D12_COMMAND_QUEUE_DESC qd = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0,
                                   D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    hr = ID3D12Device_CreateCommandQueue(g.d3d, &qd, &IID_ID3D12CommandQueue, (void **)&g.queue);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12Device::CreateCommandQueue", hr);
        goto fail;
    }
    hr = ID3D12Device_CreateCommandAllocator(g.d3d, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                             &IID_ID3D12CommandAllocator, (void **)&g.allocator);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12Device::CreateCommandAllocator", hr);
        goto fail;
    }
    hr = ID3D12Device_CreateCommandList(g.d3d, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, g.allocator,
                                        NULL, &IID_ID3D12GraphicsCommandList, (void **)&g.list);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12Device::CreateCommandList", hr);
        goto fail;
    }
    /* A new list is open; every use below starts with Reset, which wants it closed. */
    hr = ID3D12GraphicsCommandList_Close(g.list);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12GraphicsCommandList::Close", hr);
        goto fail;
    }
    hr = ID3D12Device_CreateFence(g.d3d, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                  (void **)&g.fence);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12Device::CreateFence", hr);
        goto fail;
    }
    g.fence_event = CreateEventW(NULL, FALSE, FALSE, NULL);
    if (!g.fence_event) {
        refuse(reply, "CreateEventW", HRESULT_FROM_WIN32(GetLastError()));
        goto fail;
    }
    g.descriptor_step = ID3D12Device_GetDescriptorHandleIncrementSize(
        g.d3d, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);

    if (!g.dml_module) {
        wchar_t path[MAX_PATH + 32];
        dml_path(path, ARRAYSIZE(path));
        g.dml_module = LoadLibraryW(path); /* the full path: never the search path */
        if (!g.dml_module) {
            refuse(reply, "LoadLibraryW(DirectML.dll)", HRESULT_FROM_WIN32(GetLastError()));
            goto fail;
        }
    }
    DMLCreateDevice1Fn create =
        (DMLCreateDevice1Fn)(void (*)(void))GetProcAddress(g.dml_module, "DMLCreateDevice1");
    if (!create) {
        refuse(reply, "GetProcAddress(DMLCreateDevice1)", HRESULT_FROM_WIN32(GetLastError()));
        goto fail;
    }
    hr = create(g.d3d, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_1_0, &IID_IDMLDevice,
                (void **)&g.dml);
    if (FAILED(hr)) {
        refuse(reply, "DMLCreateDevice1", hr);
        goto fail;
    }
    hr = g.dml->lpVtbl->CreateCommandRecorder(g.dml, &IID_IDMLCommandRecorder,
                                              (void **)&g.recorder);
    if (FAILED(hr)) {
        refuse(reply, "IDMLDevice::CreateCommandRecorder", hr);
        goto fail;
    }
    g.ready = 1;
    g.hung = 0;
    return 0;
fail:
    device_down();
    return 1;
}

/* ---- dml_info ---- */

static void file_version(const wchar_t *path, char *out, size_t cap) {
    snprintf(out, cap, "unknown");
    DWORD ignored = 0, size = GetFileVersionInfoSizeW(path, &ignored);
    if (!size) return;
    void *data = malloc(size);
    if (!data) return;
    VS_FIXEDFILEINFO *info = NULL;
    UINT len = 0;
    if (GetFileVersionInfoW(path, 0, size, data) &&
        VerQueryValueW(data, L"\\", (void **)&info, &len) && info && len >= sizeof *info)
        snprintf(out, cap, "%u.%u.%u.%u", (unsigned)HIWORD(info->dwFileVersionMS),
                 (unsigned)LOWORD(info->dwFileVersionMS), (unsigned)HIWORD(info->dwFileVersionLS),
                 (unsigned)LOWORD(info->dwFileVersionLS));
    free(data);
}

void dml_info(Reply *reply) {
    if (device_up(reply)) return;
    Buf *b = &reply->payload;
    char name[512];
    if (!WideCharToMultiByte(CP_UTF8, 0, g.adapter_desc.Description, -1, name, sizeof name,
                             NULL, NULL))
        snprintf(name, sizeof name, "?");
    buf_printf(b, "bridge=%s\n", BRIDGE_VERSION);
    buf_printf(b, "adapter=%s\n", name);
    buf_printf(b, "adapter_vendor=0x%04x\n", (unsigned)g.adapter_desc.VendorId);
    buf_printf(b, "adapter_device=0x%04x\n", (unsigned)g.adapter_desc.DeviceId);
    buf_printf(b, "adapter_software=%d\n",
               (g.adapter_desc.Flags & DXGI_ADAPTER_FLAG_SOFTWARE) ? 1 : 0);
    buf_printf(b, "d3d_feature_level=%u_%u\n", ((unsigned)g.d3d_level >> 12) & 0xf,
               ((unsigned)g.d3d_level >> 8) & 0xf);
    D3D12_FEATURE_DATA_SHADER_MODEL sm = {D3D_SHADER_MODEL_6_0};
    if (SUCCEEDED(ID3D12Device_CheckFeatureSupport(g.d3d, D3D12_FEATURE_SHADER_MODEL, &sm,
                                                   sizeof sm)))
        buf_printf(b, "shader_model=%u.%u\n", ((unsigned)sm.HighestShaderModel >> 4) & 0xf,
                   (unsigned)sm.HighestShaderModel & 0xf);

    static const UINT dml_levels[] = {0x1000, 0x2000, 0x2100, 0x3000, 0x3100,
                                      0x4000, 0x4100, 0x5000, 0x5100, 0x5200,
                                      0x6000, 0x6100, 0x6200, 0x6300, 0x6400};
    DML_FEATURE_QUERY_FEATURE_LEVELS lq = {ARRAYSIZE(dml_levels), dml_levels};
    DML_FEATURE_DATA_FEATURE_LEVELS ld = {0};
    HRESULT hr = g.dml->lpVtbl->CheckFeatureSupport(g.dml, DML_FEATURE_FEATURE_LEVELS, sizeof lq,
                                                    &lq, sizeof ld, &ld);
    if (FAILED(hr)) {
        refuse(reply, "IDMLDevice::CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS)", hr);
        return;
    }
    buf_printf(b, "dml_feature_level=0x%04x\n", (unsigned)ld.MaxSupportedFeatureLevel);

    wchar_t path[MAX_PATH + 32];
    char version[64];
    dml_path(path, ARRAYSIZE(path));
    file_version(path, version, sizeof version);
    buf_printf(b, "directml_dll=%s\n", version);

    static const struct { const char *name; UINT type; } types[] = {
        {"FLOAT32", DML_TENSOR_DATA_TYPE_FLOAT32}, {"FLOAT16", DML_TENSOR_DATA_TYPE_FLOAT16},
        {"UINT32", DML_TENSOR_DATA_TYPE_UINT32},   {"UINT16", DML_TENSOR_DATA_TYPE_UINT16},
        {"UINT8", DML_TENSOR_DATA_TYPE_UINT8},     {"INT32", DML_TENSOR_DATA_TYPE_INT32},
        {"INT16", DML_TENSOR_DATA_TYPE_INT16},     {"INT8", DML_TENSOR_DATA_TYPE_INT8},
        {"FLOAT64", DML_TENSOR_DATA_TYPE_FLOAT64}, {"UINT64", DML_TENSOR_DATA_TYPE_UINT64},
        {"INT64", DML_TENSOR_DATA_TYPE_INT64}};
    for (size_t i = 0; i < ARRAYSIZE(types); i++) {
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT q = {types[i].type};
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT d = {0};
        hr = g.dml->lpVtbl->CheckFeatureSupport(g.dml, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                                sizeof q, &q, sizeof d, &d);
        if (FAILED(hr)) {
            refuse(reply, "IDMLDevice::CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT)",
                   hr);
            return;
        }
        buf_printf(b, "dtype.%s=%d\n", types[i].name, d.IsSupported ? 1 : 0);
    }
}

/* ---- dml_run ---- */

/* ONNX element type -> DML_TENSOR_DATA_TYPE; 0 when DirectML has no such type. */
static UINT dml_type(uint32_t elem) {
    switch (elem) {
    case ELEM_FLOAT: return DML_TENSOR_DATA_TYPE_FLOAT32;
    case ELEM_FLOAT16: return DML_TENSOR_DATA_TYPE_FLOAT16;
    case ELEM_DOUBLE: return DML_TENSOR_DATA_TYPE_FLOAT64;
    case ELEM_UINT32: return DML_TENSOR_DATA_TYPE_UINT32;
    case ELEM_UINT16: return DML_TENSOR_DATA_TYPE_UINT16;
    case ELEM_UINT8: return DML_TENSOR_DATA_TYPE_UINT8;
    case ELEM_INT32: return DML_TENSOR_DATA_TYPE_INT32;
    case ELEM_INT16: return DML_TENSOR_DATA_TYPE_INT16;
    case ELEM_INT8: return DML_TENSOR_DATA_TYPE_INT8;
    case ELEM_UINT64: return DML_TENSOR_DATA_TYPE_UINT64;
    case ELEM_INT64: return DML_TENSOR_DATA_TYPE_INT64;
    default: return 0;
    }
}

/* Element count times element size, or UINT64_MAX when it overflows (or nearly: the caller
 * still rounds up and adds alignment). */
static uint64_t byte_count(uint32_t rank, const uint32_t *sizes, uint64_t esize) {
    const uint64_t limit = UINT64_MAX >> 2;
    uint64_t n = esize;
    for (uint32_t i = 0; i < rank; i++) {
        if (sizes[i] && n > limit / sizes[i]) return UINT64_MAX;
        n *= sizes[i];
    }
    return n;
}

static uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

static HRESULT make_buffer(uint64_t width, D3D12_HEAP_TYPE heap, D3D12_RESOURCE_STATES state,
                           ID3D12Resource **out) {
    D3D12_HEAP_PROPERTIES hp = {heap, D3D12_CPU_PAGE_PROPERTY_UNKNOWN,
                                D3D12_MEMORY_POOL_UNKNOWN, 0, 0};
    D3D12_RESOURCE_DESC rd = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1,
                              DXGI_FORMAT_UNKNOWN, {1, 0}, D3D12_TEXTURE_LAYOUT_ROW_MAJOR,
                              heap == D3D12_HEAP_TYPE_DEFAULT
                                  ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS
                                  : D3D12_RESOURCE_FLAG_NONE};
    return ID3D12Device_CreateCommittedResource(g.d3d, &hp, D3D12_HEAP_FLAG_NONE, &rd, state,
                                                NULL, &IID_ID3D12Resource, (void **)out);
}

static void transition(D3D12_RESOURCE_BARRIER *b, ID3D12Resource *r, D3D12_RESOURCE_STATES from,
                       D3D12_RESOURCE_STATES to) {
    memset(b, 0, sizeof *b);
    b->Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    b->Transition.pResource = r;
    b->Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    b->Transition.StateBefore = from;
    b->Transition.StateAfter = to;
}

static void uav_barrier(void) {
    D3D12_RESOURCE_BARRIER b;
    memset(&b, 0, sizeof b);
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV; /* no resource: all UAV accesses */
    ID3D12GraphicsCommandList_ResourceBarrier(g.list, 1, &b);
}

static HRESULT begin_commands(Reply *reply) {
    HRESULT hr = ID3D12CommandAllocator_Reset(g.allocator);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12CommandAllocator::Reset", hr);
        return hr;
    }
    hr = ID3D12GraphicsCommandList_Reset(g.list, g.allocator, NULL);
    if (FAILED(hr)) refuse(reply, "ID3D12GraphicsCommandList::Reset", hr);
    return hr;
}

/* Closes, submits and waits for the list. A removed device or a hung wait also tears the
 * device down so that the next request builds a fresh one. */
static HRESULT submit_and_wait(Reply *reply) {
    HRESULT hr = ID3D12GraphicsCommandList_Close(g.list);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12GraphicsCommandList::Close", hr);
        return hr;
    }
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)g.list};
    ID3D12CommandQueue_ExecuteCommandLists(g.queue, 1, lists);
    hr = ID3D12CommandQueue_Signal(g.queue, g.fence, ++g.fence_value);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12CommandQueue::Signal", hr);
        device_down();
        return hr;
    }
    if (ID3D12Fence_GetCompletedValue(g.fence) < g.fence_value) {
        hr = ID3D12Fence_SetEventOnCompletion(g.fence, g.fence_value, g.fence_event);
        if (FAILED(hr)) {
            refuse(reply, "ID3D12Fence::SetEventOnCompletion", hr);
            device_down();
            return hr;
        }
        if (WaitForSingleObject(g.fence_event, FENCE_TIMEOUT_MS) != WAIT_OBJECT_0) {
            hr = HRESULT_FROM_WIN32(WAIT_TIMEOUT);
            refuse(reply, "WaitForSingleObject(fence)", hr);
            device_abandon();
            return hr;
        }
    }
    hr = ID3D12Device_GetDeviceRemovedReason(g.d3d);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12Device::GetDeviceRemovedReason", hr);
        device_down();
        return hr;
    }
    return S_OK;
}

static DML_BINDING_PROPERTIES binding_properties(IDMLDispatchable *d) {
    DML_BINDING_PROPERTIES p;
    memset(&p, 0, sizeof p);
    d->lpVtbl->GetBindingProperties(d, &p);
    return p;
}

/* One member of a request's desc struct, as read (see bridge.h). */
typedef struct {
    uint32_t kind;
    char *name;     /* DirectML's member name */
    char *output;   /* MEMBER_OUTPUT_TENSOR: the output's name */
    uint32_t offset; /* in the desc struct; MEMBER_UINT_ARRAY: of the count (pointer at offset2) */
    uint32_t offset2;
    Tensor t;        /* tensors: as read (outputs: a spec, no bytes) */
    UINT dtype;      /* tensors: the DML_TENSOR_DATA_TYPE */
    uint32_t sizes[MAX_RANK];
    uint64_t bytes;  /* tensors: packed byte count */
    uint32_t value;  /* MEMBER_UINT, MEMBER_INT, MEMBER_FLOAT: the bits */
    uint32_t count;  /* MEMBER_UINT_ARRAY */
    UINT values[DML_MAX_ARRAY];
} Member;

typedef struct {
    uint32_t type; /* DML_OPERATOR_TYPE */
    uint32_t count;
    Member m[DML_MAX_MEMBERS];
    uint32_t n_in, n_out;
    uint32_t in[DML_MAX_TENSORS], out[DML_MAX_TENSORS]; /* member indices, in member order */
    Buf key; /* the request but the input tensors' bytes: what a compiled operator is kept by */
} Request;

static void request_free(Request *q) {
    for (uint32_t i = 0; i < DML_MAX_MEMBERS; i++) {
        free(q->m[i].name);
        free(q->m[i].output);
    }
    buf_free(&q->key);
    free(q);
}

static uint32_t align_to(uint32_t offset, uint32_t to) { return (offset + to - 1) / to * to; }

/* Checks a tensor member's type, sizes and bytes, and fills dtype, sizes and bytes. */
static int tensor_check(Member *m, uint32_t i, Reply *reply) {
    m->dtype = dml_type(m->t.elem_type);
    if (!m->dtype) {
        reply_bad_request(reply, "member %u (%s): element type %u has no DirectML data type", i,
                          m->name, m->t.elem_type);
        return 1;
    }
    for (uint32_t d = 0; d < m->t.rank; d++) {
        if (m->t.dims[d] < 0 || m->t.dims[d] > UINT32_MAX) {
            reply_bad_request(reply, "member %u (%s): dimension %u is %lld: DirectML sizes are "
                              "0..2^32-1", i, m->name, d, (long long)m->t.dims[d]);
            return 1;
        }
        m->sizes[d] = (uint32_t)m->t.dims[d];
    }
    m->bytes = byte_count(m->t.rank, m->sizes, elem_size(m->t.elem_type));
    if (m->bytes == UINT64_MAX) {
        reply_bad_request(reply, "member %u (%s): tensor byte count overflows", i, m->name);
        return 1;
    }
    if (m->kind == MEMBER_INPUT_TENSOR && m->bytes != m->t.nbytes) {
        reply_bad_request(reply, "member %u (%s): input has %llu bytes, its dims need %llu", i,
                          m->name, (unsigned long long)m->t.nbytes,
                          (unsigned long long)m->bytes);
        return 1;
    }
    if (m->kind == MEMBER_OUTPUT_TENSOR && m->t.nbytes) {
        reply_bad_request(reply, "member %u (%s): an output spec carries no bytes", i, m->name);
        return 1;
    }
    return 0;
}

/* Reads an OP_DML_RUN request and lays its desc struct out (offsets only). Replies
 * STATUS_BAD_REQUEST and returns NULL on anything it cannot read or lay out. */
static Request *request_parse(Reader *r, Reply *reply) {
    Request *q = calloc(1, sizeof *q);
    if (!q) {
        reply_refused(reply, (uint32_t)E_OUTOFMEMORY, "malloc of the request failed");
        return NULL;
    }
    q->type = rd_u32(r);
    q->count = rd_u32(r);
    if (r->bad) {
        reply_bad_request(reply, "truncated DML_RUN request (no operator type or member count)");
        goto fail;
    }
    if (q->count > DML_MAX_MEMBERS) {
        reply_bad_request(reply, "%u members: a desc struct has at most %d here", q->count,
                          DML_MAX_MEMBERS);
        goto fail;
    }
    buf_u32(&q->key, q->type);
    buf_u32(&q->key, q->count);
    uint32_t offset = 0;
    for (uint32_t i = 0; i < q->count; i++) {
        Member *m = &q->m[i];
        m->kind = rd_u32(r);
        m->name = rd_str(r);
        if (r->bad || !m->name) {
            reply_bad_request(reply, "truncated DML_RUN request (member %u)", i);
            goto fail;
        }
        buf_u32(&q->key, m->kind);
        buf_str(&q->key, m->name);
        switch (m->kind) {
        case MEMBER_INPUT_TENSOR:
        case MEMBER_OUTPUT_TENSOR: {
            int input = m->kind == MEMBER_INPUT_TENSOR;
            if (!input && !(m->output = rd_str(r))) {
                reply_bad_request(reply, "truncated DML_RUN request (member %u, %s)", i, m->name);
                goto fail;
            }
            if (rd_tensor(r, &m->t)) {
                reply_bad_request(reply, "member %u (%s): its tensor is truncated or has a rank "
                                  "over %d", i, m->name, MAX_RANK);
                goto fail;
            }
            if (tensor_check(m, i, reply)) goto fail;
            uint32_t *n = input ? &q->n_in : &q->n_out;
            if (*n == DML_MAX_TENSORS) {
                reply_bad_request(reply, "member %u (%s): more than %d %s tensors", i, m->name,
                                  DML_MAX_TENSORS, input ? "input" : "output");
                goto fail;
            }
            (input ? q->in : q->out)[(*n)++] = i;
            if (!input) buf_str(&q->key, m->output);
            buf_u32(&q->key, m->t.elem_type);
            buf_u32(&q->key, m->t.rank);
            buf_bytes(&q->key, m->t.dims, 8 * (size_t)m->t.rank);
            m->offset = offset = align_to(offset, 8);
            offset += 8;
            break;
        }
        case MEMBER_UINT:
        case MEMBER_INT:
        case MEMBER_FLOAT:
            m->value = rd_u32(r);
            buf_u32(&q->key, m->value);
            m->offset = offset = align_to(offset, 4);
            offset += 4;
            break;
        case MEMBER_UINT_ARRAY:
            m->count = rd_u32(r);
            if (!r->bad && m->count > DML_MAX_ARRAY) {
                reply_bad_request(reply, "member %u (%s): %u values, at most %d here", i,
                                  m->name, m->count, DML_MAX_ARRAY);
                goto fail;
            }
            for (uint32_t v = 0; v < m->count && !r->bad; v++) m->values[v] = rd_u32(r);
            buf_u32(&q->key, m->count);
            buf_bytes(&q->key, m->values, 4 * (size_t)m->count);
            m->offset = offset = align_to(offset, 4);
            m->offset2 = offset = align_to(offset + 4, 8);
            offset += 8;
            break;
        default:
            reply_bad_request(reply, "member %u (%s) has unknown kind %u", i, m->name, m->kind);
            goto fail;
        }
        if (r->bad) {
            reply_bad_request(reply, "truncated DML_RUN request (member %u, %s)", i, m->name);
            goto fail;
        }
        if (offset > DML_MAX_DESC_BYTES) {
            reply_bad_request(reply, "the desc struct passes %d bytes at member %u (%s)",
                              DML_MAX_DESC_BYTES, i, m->name);
            goto fail;
        }
    }
    if (r->left) {
        reply_bad_request(reply, "%zu trailing bytes after the DML_RUN request", r->left);
        goto fail;
    }
    if (!q->n_out) {
        reply_bad_request(reply, "the desc has no output tensor member");
        goto fail;
    }
    return q;
fail:
    request_free(q);
    return NULL;
}

/* The D3D12 buffer of a tensor of `bytes` packed bytes: its TotalTensorSizeInBytes (a
 * multiple of 4), at least 256 bytes (no zero-sized resources) and a multiple of 256, so
 * that the upload and readback regions line up. */
static uint64_t buffer_width(uint64_t bytes) {
    uint64_t total = round_up(bytes, 4);
    return round_up(total ? total : 1, 256);
}

/* Creates, compiles and initializes the operator of `q` and its buffers into `e` (not yet in
 * the cache, so that a refused operator evicts nothing). Replies and returns nonzero on
 * failure, with all it made released. */
static int entry_build(Entry *e, const Request *q, const DML_OPERATOR_DESC *desc, Reply *reply) {
    memset(e, 0, sizeof *e);
    IUnknown *op = NULL;
    IDMLDispatchable *init = NULL;
    IDMLBindingTable *init_bindings = NULL;

    HRESULT hr = g.dml->lpVtbl->CreateOperator(g.dml, desc, &IID_IDMLOperator, (void **)&op);
    if (FAILED(hr)) {
        refuse(reply, "IDMLDevice::CreateOperator", hr);
        goto fail;
    }
    hr = g.dml->lpVtbl->CompileOperator(g.dml, op, DML_EXECUTION_FLAG_NONE,
                                        &IID_IDMLCompiledOperator, (void **)&e->compiled);
    RELEASE(op);
    if (FAILED(hr)) {
        refuse(reply, "IDMLDevice::CompileOperator", hr);
        goto fail;
    }
    hr = g.dml->lpVtbl->CreateOperatorInitializer(g.dml, 1, &e->compiled,
                                                  &IID_IDMLOperatorInitializer, (void **)&init);
    if (FAILED(hr)) {
        refuse(reply, "IDMLDevice::CreateOperatorInitializer", hr);
        goto fail;
    }
    DML_BINDING_PROPERTIES ip = binding_properties(init), ep = binding_properties(e->compiled);

    /* One shader-visible heap: the initializer's descriptors first, then the operator's. */
    D3D12_DESCRIPTOR_HEAP_DESC hd = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV,
                                     ip.RequiredDescriptorCount + ep.RequiredDescriptorCount,
                                     D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    if (hd.NumDescriptors == 0) hd.NumDescriptors = 1;
    hr = ID3D12Device_CreateDescriptorHeap(g.d3d, &hd, &IID_ID3D12DescriptorHeap,
                                           (void **)&e->heap);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12Device::CreateDescriptorHeap", hr);
        goto fail;
    }

    const D3D12_RESOURCE_STATES uav = D3D12_RESOURCE_STATE_UNORDERED_ACCESS;
    e->n_in = q->n_in;
    e->n_out = q->n_out;
    for (uint32_t i = 0; i < e->n_in; i++) {
        e->in_width[i] = buffer_width(q->m[q->in[i]].bytes);
        e->in_total += e->in_width[i];
        if (FAILED(hr = make_buffer(e->in_width[i], D3D12_HEAP_TYPE_DEFAULT, uav, &e->in[i])))
            break;
    }
    for (uint32_t i = 0; i < e->n_out && SUCCEEDED(hr); i++) {
        e->out_width[i] = buffer_width(q->m[q->out[i]].bytes);
        e->out_total += e->out_width[i];
        hr = make_buffer(e->out_width[i], D3D12_HEAP_TYPE_DEFAULT, uav, &e->out[i]);
    }
    if (FAILED(hr) ||
        FAILED(hr = make_buffer(e->in_total + e->out_total, D3D12_HEAP_TYPE_UPLOAD,
                                D3D12_RESOURCE_STATE_GENERIC_READ, &e->upload)) ||
        FAILED(hr = make_buffer(e->out_total, D3D12_HEAP_TYPE_READBACK,
                                D3D12_RESOURCE_STATE_COPY_DEST, &e->readback))) {
        refuse(reply, "ID3D12Device::CreateCommittedResource", hr);
        goto fail;
    }
    uint64_t temp_size = ip.TemporaryResourceSize > ep.TemporaryResourceSize
                             ? ip.TemporaryResourceSize
                             : ep.TemporaryResourceSize;
    if ((temp_size &&
         FAILED(hr = make_buffer(round_up(temp_size, 256), D3D12_HEAP_TYPE_DEFAULT, uav,
                                 &e->temp))) ||
        (ep.PersistentResourceSize &&
         FAILED(hr = make_buffer(round_up(ep.PersistentResourceSize, 256),
                                 D3D12_HEAP_TYPE_DEFAULT, uav, &e->persistent)))) {
        refuse(reply, "ID3D12Device::CreateCommittedResource", hr);
        goto fail;
    }

    D3D12_CPU_DESCRIPTOR_HANDLE cpu;
    D3D12_GPU_DESCRIPTOR_HANDLE gpu;
    /* Struct returns from C: the vtable takes a hidden result pointer (see the header). */
    e->heap->lpVtbl->GetCPUDescriptorHandleForHeapStart(e->heap, &cpu);
    e->heap->lpVtbl->GetGPUDescriptorHandleForHeapStart(e->heap, &gpu);

    /* Initialize once: the initializer writes the persistent resource, if any. */
    DML_BINDING_TABLE_DESC td = {init, cpu, gpu, ip.RequiredDescriptorCount};
    hr = g.dml->lpVtbl->CreateBindingTable(g.dml, &td, &IID_IDMLBindingTable,
                                           (void **)&init_bindings);
    if (FAILED(hr)) {
        refuse(reply, "IDMLDevice::CreateBindingTable(initializer)", hr);
        goto fail;
    }
    DML_BUFFER_BINDING temp_buf = {e->temp, 0, round_up(temp_size, 256)};
    DML_BINDING_DESC temp_bind = {DML_BINDING_TYPE_BUFFER, &temp_buf};
    DML_BUFFER_BINDING persist_buf = {e->persistent, 0, round_up(ep.PersistentResourceSize, 256)};
    DML_BINDING_DESC persist_bind = {DML_BINDING_TYPE_BUFFER, &persist_buf};
    DML_BINDING_DESC none = {DML_BINDING_TYPE_NONE, NULL};
    if (ip.TemporaryResourceSize) init_bindings->lpVtbl->BindTemporaryResource(init_bindings,
                                                                               &temp_bind);
    init_bindings->lpVtbl->BindOutputs(init_bindings, 1, e->persistent ? &persist_bind : &none);

    if (FAILED(hr = begin_commands(reply))) goto fail;
    ID3D12GraphicsCommandList_SetDescriptorHeaps(g.list, 1, &e->heap);
    g.recorder->lpVtbl->RecordDispatch(g.recorder, (ID3D12CommandList *)g.list, init,
                                       init_bindings);
    uav_barrier();
    if (FAILED(hr = submit_and_wait(reply))) goto fail;
    RELEASE(init_bindings);
    RELEASE(init);

    /* The operator's bindings never change for this entry: bind them once, the inputs and
     * the outputs each in member order (DirectML's binding order). */
    cpu.ptr += (SIZE_T)ip.RequiredDescriptorCount * g.descriptor_step;
    gpu.ptr += (UINT64)ip.RequiredDescriptorCount * g.descriptor_step;
    DML_BINDING_TABLE_DESC ed = {e->compiled, cpu, gpu, ep.RequiredDescriptorCount};
    hr = g.dml->lpVtbl->CreateBindingTable(g.dml, &ed, &IID_IDMLBindingTable,
                                           (void **)&e->bindings);
    if (FAILED(hr)) {
        refuse(reply, "IDMLDevice::CreateBindingTable", hr);
        goto fail;
    }
    DML_BUFFER_BINDING in_buf[DML_MAX_TENSORS], out_buf[DML_MAX_TENSORS];
    DML_BINDING_DESC in_bind[DML_MAX_TENSORS], out_bind[DML_MAX_TENSORS];
    for (uint32_t i = 0; i < e->n_in; i++) {
        in_buf[i] = (DML_BUFFER_BINDING){e->in[i], 0, e->in_width[i]};
        in_bind[i] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &in_buf[i]};
    }
    for (uint32_t i = 0; i < e->n_out; i++) {
        out_buf[i] = (DML_BUFFER_BINDING){e->out[i], 0, e->out_width[i]};
        out_bind[i] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &out_buf[i]};
    }
    e->bindings->lpVtbl->BindInputs(e->bindings, e->n_in, e->n_in ? in_bind : NULL);
    e->bindings->lpVtbl->BindOutputs(e->bindings, e->n_out, out_bind);
    if (ep.TemporaryResourceSize) e->bindings->lpVtbl->BindTemporaryResource(e->bindings,
                                                                             &temp_bind);
    if (e->persistent) e->bindings->lpVtbl->BindPersistentResource(e->bindings, &persist_bind);
    e->key = malloc(q->key.len ? q->key.len : 1);
    if (!e->key) {
        reply_refused(reply, (uint32_t)E_OUTOFMEMORY, "malloc of the cache key failed");
        goto fail;
    }
    memcpy(e->key, q->key.data, q->key.len);
    e->key_len = q->key.len;
    e->used = 1;
    return 0;
fail:
    if (g.hung) { /* the GPU may still be running the initializer: leak rather than free */
        memset(e, 0, sizeof *e);
        return 1;
    }
    RELEASE(init_bindings);
    RELEASE(init);
    RELEASE(op);
    entry_free(e);
    return 1;
}

/* Uploads the inputs and the sentinel-filled outputs, dispatches, and reads the outputs back
 * into `outputs[i]` (their packed sizes). Replies and returns nonzero on failure. */
static int entry_run(Entry *e, const Request *q, uint8_t *const *outputs, Reply *reply) {
    uint8_t *up = NULL;
    D3D12_RANGE nothing_read = {0, 0};
    HRESULT hr = ID3D12Resource_Map(e->upload, 0, &nothing_read, (void **)&up);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12Resource::Map(upload)", hr);
        return 1;
    }
    uint64_t at = 0;
    for (uint32_t i = 0; i < e->n_in; i++) {
        const Member *m = &q->m[q->in[i]];
        memset(up + at, 0, e->in_width[i]);
        if (m->bytes) memcpy(up + at, m->t.data, m->bytes);
        at += e->in_width[i];
    }
    memset(up + e->in_total, SENTINEL_BYTE, e->out_total);
    ID3D12Resource_Unmap(e->upload, 0, NULL);

    if (FAILED(begin_commands(reply))) return 1;
    const D3D12_RESOURCE_STATES uav = D3D12_RESOURCE_STATE_UNORDERED_ACCESS;
    const D3D12_RESOURCE_STATES dest = D3D12_RESOURCE_STATE_COPY_DEST;
    const D3D12_RESOURCE_STATES source = D3D12_RESOURCE_STATE_COPY_SOURCE;
    D3D12_RESOURCE_BARRIER b[2 * DML_MAX_TENSORS];
    ID3D12Resource *bufs[2 * DML_MAX_TENSORS];
    uint64_t widths[2 * DML_MAX_TENSORS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < e->n_in; i++, n++) bufs[n] = e->in[i], widths[n] = e->in_width[i];
    for (uint32_t i = 0; i < e->n_out; i++, n++) bufs[n] = e->out[i], widths[n] = e->out_width[i];
    ID3D12Resource **outs = bufs + e->n_in;
    D3D12_RESOURCE_BARRIER *out_b = b + e->n_in;

    /* Every buffer from the upload buffer: inputs first, then the sentinel-filled outputs. */
    for (uint32_t i = 0; i < n; i++) transition(&b[i], bufs[i], uav, dest);
    ID3D12GraphicsCommandList_ResourceBarrier(g.list, n, b);
    at = 0;
    for (uint32_t i = 0; i < n; i++) {
        ID3D12GraphicsCommandList_CopyBufferRegion(g.list, bufs[i], 0, e->upload, at, widths[i]);
        at += widths[i];
    }
    for (uint32_t i = 0; i < n; i++) transition(&b[i], bufs[i], dest, uav);
    ID3D12GraphicsCommandList_ResourceBarrier(g.list, n, b);

    ID3D12GraphicsCommandList_SetDescriptorHeaps(g.list, 1, &e->heap);
    g.recorder->lpVtbl->RecordDispatch(g.recorder, (ID3D12CommandList *)g.list, e->compiled,
                                       e->bindings);
    uav_barrier();

    for (uint32_t i = 0; i < e->n_out; i++) transition(&out_b[i], outs[i], uav, source);
    ID3D12GraphicsCommandList_ResourceBarrier(g.list, e->n_out, out_b);
    at = 0;
    for (uint32_t i = 0; i < e->n_out; i++) {
        ID3D12GraphicsCommandList_CopyBufferRegion(g.list, e->readback, at, outs[i], 0,
                                                   e->out_width[i]);
        at += e->out_width[i];
    }
    for (uint32_t i = 0; i < e->n_out; i++) transition(&out_b[i], outs[i], source, uav);
    ID3D12GraphicsCommandList_ResourceBarrier(g.list, e->n_out, out_b);
    if (FAILED(submit_and_wait(reply))) return 1;

    uint8_t *down = NULL;
    D3D12_RANGE all = {0, (SIZE_T)e->out_total};
    hr = ID3D12Resource_Map(e->readback, 0, &all, (void **)&down);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12Resource::Map(readback)", hr);
        return 1;
    }
    at = 0;
    for (uint32_t i = 0; i < e->n_out; i++) {
        uint64_t bytes = q->m[q->out[i]].bytes;
        if (bytes) memcpy(outputs[i], down + at, bytes);
        at += e->out_width[i];
    }
    ID3D12Resource_Unmap(e->readback, 0, &nothing_read);
    return 0;
}

static Entry *cache_find(const Buf *key) {
    for (int i = 0; i < CACHE_SIZE; i++)
        if (g.cache[i].used && g.cache[i].key_len == key->len &&
            !memcmp(g.cache[i].key, key->data, key->len))
            return &g.cache[i];
    return NULL;
}

/* A free slot, or the least recently used one, emptied. */
static Entry *cache_slot(void) {
    Entry *oldest = &g.cache[0];
    for (int i = 0; i < CACHE_SIZE; i++) {
        if (!g.cache[i].used) return &g.cache[i];
        if (g.cache[i].last_use < oldest->last_use) oldest = &g.cache[i];
    }
    entry_free(oldest);
    return oldest;
}

/* Builds the operator's desc struct from the members, x64 layout (see bridge.h), and the
 * entry from it. The tensor descs live here only while DirectML creates the operator. */
static int entry_create(Entry *e, const Request *q, Reply *reply) {
    DML_BUFFER_TENSOR_DESC buffers[DML_MAX_MEMBERS];
    DML_TENSOR_DESC tensors[DML_MAX_MEMBERS];
    union {
        uint64_t align;
        uint8_t bytes[DML_MAX_DESC_BYTES];
    } desc;
    memset(&desc, 0, sizeof desc);
    for (uint32_t i = 0; i < q->count; i++) {
        const Member *m = &q->m[i];
        switch (m->kind) {
        case MEMBER_INPUT_TENSOR:
        case MEMBER_OUTPUT_TENSOR: {
            /* Packed sizes, no strides; DirectML wants total sizes in multiples of 4 bytes. */
            buffers[i] = (DML_BUFFER_TENSOR_DESC){m->dtype, DML_TENSOR_FLAG_NONE, m->t.rank,
                                                  m->sizes, NULL, round_up(m->bytes, 4), 0};
            tensors[i] = (DML_TENSOR_DESC){DML_TENSOR_TYPE_BUFFER, &buffers[i]};
            const DML_TENSOR_DESC *p = &tensors[i];
            memcpy(desc.bytes + m->offset, &p, sizeof p);
            break;
        }
        case MEMBER_UINT:
        case MEMBER_INT:
        case MEMBER_FLOAT:
            memcpy(desc.bytes + m->offset, &m->value, 4);
            break;
        case MEMBER_UINT_ARRAY: {
            const UINT *p = m->count ? m->values : NULL;
            memcpy(desc.bytes + m->offset, &m->count, 4);
            memcpy(desc.bytes + m->offset2, &p, sizeof p);
            break;
        }
        }
    }
    DML_OPERATOR_DESC op = {q->type, desc.bytes};
    return entry_build(e, q, &op, reply);
}

void dml_run(Reader *request, Reply *reply) {
    Request *q = request_parse(request, reply);
    if (!q) return;
    uint8_t *outputs[DML_MAX_TENSORS] = {NULL};
    if (device_up(reply)) goto done;

    Entry *e = cache_find(&q->key);
    if (!e) {
        Entry fresh;
        if (entry_create(&fresh, q, reply)) goto done;
        e = cache_slot();
        *e = fresh;
    }
    e->last_use = ++g.clock;

    for (uint32_t i = 0; i < q->n_out; i++) {
        uint64_t bytes = q->m[q->out[i]].bytes;
        if (!(outputs[i] = malloc(bytes ? (size_t)bytes : 1))) {
            reply_refused(reply, (uint32_t)E_OUTOFMEMORY, "malloc of the outputs failed");
            goto done;
        }
    }
    if (!entry_run(e, q, outputs, reply)) {
        buf_u32(&reply->payload, q->n_out);
        for (uint32_t i = 0; i < q->n_out; i++) {
            const Member *m = &q->m[q->out[i]];
            buf_str(&reply->payload, m->output);
            buf_tensor(&reply->payload, m->t.elem_type, m->t.rank, m->t.dims, outputs[i],
                       m->bytes);
        }
    }
    /* A very large operator is not worth its memory in the cache. */
    if (g.ready && e->used && e->in_total + 2 * e->out_total > CACHE_MAX_BYTES) entry_free(e);
done:
    for (uint32_t i = 0; i < DML_MAX_TENSORS; i++) free(outputs[i]);
    request_free(q);
}
