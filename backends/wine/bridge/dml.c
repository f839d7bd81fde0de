/* The DirectML half of the bridge: a D3D12 device, DirectML.dll loaded from beside the .exe,
 * and DirectML's own DML_OPERATOR_TOP_K / DML_OPERATOR_TOP_K1 run on request (see bridge.h).
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
enum { DML_OPERATOR_TOP_K = 71, DML_OPERATOR_TOP_K1 = 112 };
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

typedef struct {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputValueTensor;
    const DML_TENSOR_DESC *OutputIndexTensor;
    UINT Axis;
    UINT K;
} DML_TOP_K_OPERATOR_DESC;

typedef struct {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputValueTensor;
    const DML_TENSOR_DESC *OutputIndexTensor;
    UINT Axis;
    UINT K;
    UINT AxisDirection;
} DML_TOP_K1_OPERATOR_DESC;

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

typedef struct {
    uint32_t op, dtype, itype, rank, axis, k, direction;
    uint32_t sizes[MAX_RANK];
} OpKey;

/* A compiled, initialized operator with its buffers and bindings, ready to dispatch again. */
typedef struct {
    int used;
    uint64_t last_use;
    OpKey key;
    IDMLDispatchable *compiled;
    ID3D12DescriptorHeap *heap;
    IDMLBindingTable *bindings;
    ID3D12Resource *input, *values, *indices, *temp, *persistent, *upload, *readback;
    uint64_t in_width, val_width, idx_width; /* D3D12 buffer sizes */
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
    RELEASE(e->input);
    RELEASE(e->values);
    RELEASE(e->indices);
    RELEASE(e->temp);
    RELEASE(e->persistent);
    RELEASE(e->upload);
    RELEASE(e->readback);
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

/* Creates, compiles and initializes the operator of `key` and its buffers into `e` (not yet
 * in the cache, so that a refused operator evicts nothing). Replies and returns nonzero on
 * failure, with all it made released. */
static int entry_build(Entry *e, const OpKey *key, const DML_OPERATOR_DESC *desc,
                       uint64_t in_size, uint64_t val_size, uint64_t idx_size, Reply *reply) {
    memset(e, 0, sizeof *e);
    e->key = *key;
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

    /* Buffers are at least 256 bytes (no zero-sized resources) and their widths are
     * multiples of 256, so that the upload and readback regions line up. */
    e->in_width = round_up(in_size ? in_size : 1, 256);
    e->val_width = round_up(val_size ? val_size : 1, 256);
    e->idx_width = round_up(idx_size ? idx_size : 1, 256);
    const D3D12_RESOURCE_STATES uav = D3D12_RESOURCE_STATE_UNORDERED_ACCESS;
    if (FAILED(hr = make_buffer(e->in_width, D3D12_HEAP_TYPE_DEFAULT, uav, &e->input)) ||
        FAILED(hr = make_buffer(e->val_width, D3D12_HEAP_TYPE_DEFAULT, uav, &e->values)) ||
        FAILED(hr = make_buffer(e->idx_width, D3D12_HEAP_TYPE_DEFAULT, uav, &e->indices)) ||
        FAILED(hr = make_buffer(e->in_width + e->val_width + e->idx_width,
                                D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ,
                                &e->upload)) ||
        FAILED(hr = make_buffer(e->val_width + e->idx_width, D3D12_HEAP_TYPE_READBACK,
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

    /* The operator's bindings never change for this entry: bind them once. */
    cpu.ptr += (SIZE_T)ip.RequiredDescriptorCount * g.descriptor_step;
    gpu.ptr += (UINT64)ip.RequiredDescriptorCount * g.descriptor_step;
    DML_BINDING_TABLE_DESC ed = {e->compiled, cpu, gpu, ep.RequiredDescriptorCount};
    hr = g.dml->lpVtbl->CreateBindingTable(g.dml, &ed, &IID_IDMLBindingTable,
                                           (void **)&e->bindings);
    if (FAILED(hr)) {
        refuse(reply, "IDMLDevice::CreateBindingTable", hr);
        goto fail;
    }
    DML_BUFFER_BINDING in_buf = {e->input, 0, e->in_width};
    DML_BUFFER_BINDING out_buf[2] = {{e->values, 0, e->val_width},
                                     {e->indices, 0, e->idx_width}};
    DML_BINDING_DESC in_bind = {DML_BINDING_TYPE_BUFFER, &in_buf};
    DML_BINDING_DESC out_bind[2] = {{DML_BINDING_TYPE_BUFFER, &out_buf[0]},
                                    {DML_BINDING_TYPE_BUFFER, &out_buf[1]}};
    e->bindings->lpVtbl->BindInputs(e->bindings, 1, &in_bind);
    e->bindings->lpVtbl->BindOutputs(e->bindings, 2, out_bind);
    if (ep.TemporaryResourceSize) e->bindings->lpVtbl->BindTemporaryResource(e->bindings,
                                                                             &temp_bind);
    if (e->persistent) e->bindings->lpVtbl->BindPersistentResource(e->bindings, &persist_bind);
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

/* Uploads the input and the sentinel-filled outputs, dispatches, and reads the outputs back
 * into `values` and `indices` (the packed sizes). Replies and returns nonzero on failure. */
static int entry_run(Entry *e, const void *input, uint64_t in_bytes, void *values,
                     uint64_t val_bytes, void *indices, uint64_t idx_bytes, Reply *reply) {
    uint8_t *up = NULL;
    D3D12_RANGE nothing_read = {0, 0};
    HRESULT hr = ID3D12Resource_Map(e->upload, 0, &nothing_read, (void **)&up);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12Resource::Map(upload)", hr);
        return 1;
    }
    memset(up, 0, e->in_width);
    if (in_bytes) memcpy(up, input, in_bytes);
    memset(up + e->in_width, SENTINEL_BYTE, e->val_width + e->idx_width);
    ID3D12Resource_Unmap(e->upload, 0, NULL);

    if (FAILED(begin_commands(reply))) return 1;
    const D3D12_RESOURCE_STATES uav = D3D12_RESOURCE_STATE_UNORDERED_ACCESS;
    D3D12_RESOURCE_BARRIER b[3];
    ID3D12Resource *bufs[3] = {e->input, e->values, e->indices};
    for (int i = 0; i < 3; i++) transition(&b[i], bufs[i], uav, D3D12_RESOURCE_STATE_COPY_DEST);
    ID3D12GraphicsCommandList_ResourceBarrier(g.list, 3, b);
    ID3D12GraphicsCommandList_CopyBufferRegion(g.list, e->input, 0, e->upload, 0, e->in_width);
    ID3D12GraphicsCommandList_CopyBufferRegion(g.list, e->values, 0, e->upload, e->in_width,
                                               e->val_width);
    ID3D12GraphicsCommandList_CopyBufferRegion(g.list, e->indices, 0, e->upload,
                                               e->in_width + e->val_width, e->idx_width);
    for (int i = 0; i < 3; i++) transition(&b[i], bufs[i], D3D12_RESOURCE_STATE_COPY_DEST, uav);
    ID3D12GraphicsCommandList_ResourceBarrier(g.list, 3, b);

    ID3D12GraphicsCommandList_SetDescriptorHeaps(g.list, 1, &e->heap);
    g.recorder->lpVtbl->RecordDispatch(g.recorder, (ID3D12CommandList *)g.list, e->compiled,
                                       e->bindings);
    uav_barrier();

    for (int i = 1; i < 3; i++) transition(&b[i], bufs[i], uav, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_ResourceBarrier(g.list, 2, b + 1);
    ID3D12GraphicsCommandList_CopyBufferRegion(g.list, e->readback, 0, e->values, 0,
                                               e->val_width);
    ID3D12GraphicsCommandList_CopyBufferRegion(g.list, e->readback, e->val_width, e->indices, 0,
                                               e->idx_width);
    for (int i = 1; i < 3; i++) transition(&b[i], bufs[i], D3D12_RESOURCE_STATE_COPY_SOURCE, uav);
    ID3D12GraphicsCommandList_ResourceBarrier(g.list, 2, b + 1);
    if (FAILED(submit_and_wait(reply))) return 1;

    uint8_t *down = NULL;
    D3D12_RANGE all = {0, (SIZE_T)(e->val_width + e->idx_width)};
    hr = ID3D12Resource_Map(e->readback, 0, &all, (void **)&down);
    if (FAILED(hr)) {
        refuse(reply, "ID3D12Resource::Map(readback)", hr);
        return 1;
    }
    if (val_bytes) memcpy(values, down, val_bytes);
    if (idx_bytes) memcpy(indices, down + e->val_width, idx_bytes);
    ID3D12Resource_Unmap(e->readback, 0, &nothing_read);
    return 0;
}

static Entry *cache_find(const OpKey *key) {
    for (int i = 0; i < CACHE_SIZE; i++)
        if (g.cache[i].used && !memcmp(&g.cache[i].key, key, sizeof *key)) return &g.cache[i];
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

void dml_run(Reader *request, Reply *reply) {
    uint32_t op = rd_u32(request), axis = rd_u32(request), k = rd_u32(request);
    uint32_t direction = rd_u32(request), index_elem = rd_u32(request);
    Tensor t;
    if (rd_tensor(request, &t)) {
        reply_bad_request(reply, "truncated DML_RUN request");
        return;
    }
    if (request->left) {
        reply_bad_request(reply, "%zu trailing bytes after the DML_RUN request", request->left);
        return;
    }
    if (op != DML_OPERATOR_TOP_K && op != DML_OPERATOR_TOP_K1) {
        reply_bad_request(reply, "operator %u is neither DML_OPERATOR_TOP_K (71) nor "
                                 "DML_OPERATOR_TOP_K1 (112)", op);
        return;
    }
    UINT dtype = dml_type(t.elem_type), itype = dml_type(index_elem);
    if (!dtype) {
        reply_bad_request(reply, "input element type %u has no DirectML data type", t.elem_type);
        return;
    }
    if (!itype) {
        reply_bad_request(reply, "index element type %u has no DirectML data type", index_elem);
        return;
    }

    OpKey key;
    memset(&key, 0, sizeof key);
    key.op = op;
    key.dtype = dtype;
    key.itype = itype;
    key.rank = t.rank;
    key.axis = axis;
    key.k = k;
    key.direction = op == DML_OPERATOR_TOP_K1 ? direction : 0; /* TOP_K has no direction */
    for (uint32_t i = 0; i < t.rank; i++) {
        if (t.dims[i] < 0 || t.dims[i] > UINT32_MAX) {
            reply_bad_request(reply, "dimension %u is %lld: DirectML sizes are 0..2^32-1", i,
                              (long long)t.dims[i]);
            return;
        }
        key.sizes[i] = (uint32_t)t.dims[i];
    }
    /* Output sizes: the input's with the axis replaced by K. An axis out of range is left for
     * DirectML to judge, with the input's sizes. */
    uint32_t out_sizes[MAX_RANK];
    int64_t out_dims[MAX_RANK];
    memcpy(out_sizes, key.sizes, sizeof out_sizes);
    if (axis < t.rank) out_sizes[axis] = k;
    for (uint32_t i = 0; i < t.rank; i++) out_dims[i] = out_sizes[i];

    uint64_t in_bytes = byte_count(t.rank, key.sizes, elem_size(t.elem_type));
    uint64_t val_bytes = byte_count(t.rank, out_sizes, elem_size(t.elem_type));
    uint64_t idx_bytes = byte_count(t.rank, out_sizes, elem_size(index_elem));
    if (in_bytes == UINT64_MAX || val_bytes == UINT64_MAX || idx_bytes == UINT64_MAX) {
        reply_bad_request(reply, "tensor byte count overflows");
        return;
    }
    if (in_bytes != t.nbytes) {
        reply_bad_request(reply, "input has %llu bytes, its dims need %llu",
                          (unsigned long long)t.nbytes, (unsigned long long)in_bytes);
        return;
    }
    if (device_up(reply)) return;

    Entry *e = cache_find(&key);
    if (!e) {
        /* Packed sizes, no strides; DirectML wants total sizes in multiples of 4 bytes. */
        DML_BUFFER_TENSOR_DESC in_buf = {dtype, DML_TENSOR_FLAG_NONE, t.rank, key.sizes, NULL,
                                         round_up(in_bytes, 4), 0};
        DML_BUFFER_TENSOR_DESC val_buf = {dtype, DML_TENSOR_FLAG_NONE, t.rank, out_sizes, NULL,
                                          round_up(val_bytes, 4), 0};
        DML_BUFFER_TENSOR_DESC idx_buf = {itype, DML_TENSOR_FLAG_NONE, t.rank, out_sizes, NULL,
                                          round_up(idx_bytes, 4), 0};
        DML_TENSOR_DESC in_desc = {DML_TENSOR_TYPE_BUFFER, &in_buf};
        DML_TENSOR_DESC val_desc = {DML_TENSOR_TYPE_BUFFER, &val_buf};
        DML_TENSOR_DESC idx_desc = {DML_TENSOR_TYPE_BUFFER, &idx_buf};
        DML_TOP_K_OPERATOR_DESC topk = {&in_desc, &val_desc, &idx_desc, axis, k};
        DML_TOP_K1_OPERATOR_DESC topk1 = {&in_desc, &val_desc, &idx_desc, axis, k, direction};
        DML_OPERATOR_DESC desc = {op, op == DML_OPERATOR_TOP_K1 ? (const void *)&topk1
                                                                : (const void *)&topk};
        Entry fresh;
        if (entry_build(&fresh, &key, &desc, round_up(in_bytes, 4), round_up(val_bytes, 4),
                        round_up(idx_bytes, 4), reply))
            return;
        e = cache_slot();
        *e = fresh;
    }
    e->last_use = ++g.clock;

    void *values = malloc(val_bytes ? (size_t)val_bytes : 1);
    void *indices = malloc(idx_bytes ? (size_t)idx_bytes : 1);
    if (!values || !indices) {
        free(values);
        free(indices);
        reply_refused(reply, (uint32_t)E_OUTOFMEMORY, "malloc of the outputs failed");
        return;
    }
    if (!entry_run(e, t.data, in_bytes, values, val_bytes, indices, idx_bytes, reply)) {
        buf_tensor(&reply->payload, t.elem_type, t.rank, out_dims, values, val_bytes);
        buf_tensor(&reply->payload, index_elem, t.rank, out_dims, indices, idx_bytes);
    }
    free(values);
    free(indices);
    /* A very large operator is not worth its memory in the cache. */
    if (g.ready && e->used && e->in_width + 2 * (e->val_width + e->idx_width) > CACHE_MAX_BYTES)
        entry_free(e);
}
