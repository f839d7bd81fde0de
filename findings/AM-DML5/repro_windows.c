/* AM-DML5: DirectML DML_OPERATOR_ARGMAX / ARGMIN / REDUCE accept, and answer rightly: FLOAT32, INT8,
 * UINT8, INT32, UINT32, INT64 and UINT64 input; INT32, INT64, UINT32 and UINT64 indices, both
 * directions (TopK refuses INT32 indices); REDUCE on an 8-D tensor (its feature-level 1.0 table
 * says 4-D). This device reports FLOAT16, INT16 and UINT16 unsupported. An observation: REPRODUCED
 * means all of that holds here (on a GPU supporting FLOAT16 the last part, and so the verdict, differs).
 *
 * Windows: put DirectML.dll (Microsoft.AI.DirectML NuGet package, bin\x64-win\DirectML.dll) beside
 * the .exe;  cl repro_windows.c  (links d3d12.lib dxgi.lib version.lib through #pragma comment), or
 * x86_64-w64-mingw32-gcc repro_windows.c -ld3d12 -ldxgi -lversion.  Runs on adapter 0.
 * Last line: REPRODUCED (exit 0), NOT REPRODUCED (exit 1), CANNOT RUN: why (exit 2). */
/* ---- D3D12 + DirectML plumbing (no DirectML.h needed: the few declarations are below) ---- */
#define COBJMACROS
#include <windows.h>
#include <initguid.h>
#include <d3d12.h>
#include <dxgi1_4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _MSC_VER
#pragma comment(lib, "d3d12.lib")
#pragma comment(lib, "dxgi.lib")
#pragma comment(lib, "version.lib")
#endif

/* From DirectML.h (Microsoft.AI.DirectML): enum values and struct layouts. */
enum { DT_FLOAT32 = 1, DT_FLOAT16, DT_UINT32, DT_UINT16, DT_UINT8, DT_INT32, DT_INT16, DT_INT8,
       DT_FLOAT64, DT_UINT64, DT_INT64 };                        /* DML_TENSOR_DATA_TYPE */
enum { OP_REDUCE = 55, OP_TOP_K = 71, OP_TOP_K1 = 112, OP_ARGMIN = 137, OP_ARGMAX = 138 };
enum { REDUCE_ARGMAX = 0, REDUCE_ARGMIN = 1 };                   /* DML_REDUCE_FUNCTION */
enum { INCREASING = 0, DECREASING = 1 };                         /* DML_AXIS_DIRECTION */
typedef struct { UINT DataType, Flags, DimensionCount; const UINT *Sizes, *Strides;
                 UINT64 TotalTensorSizeInBytes; UINT GuaranteedBaseOffsetAlignment; } DML_BUFFER_TENSOR_DESC;
typedef struct { UINT Type; const void *Desc; } DML_TENSOR_DESC;   /* Type 1: BUFFER */
typedef struct { UINT Type; const void *Desc; } DML_OPERATOR_DESC;
typedef struct { const DML_TENSOR_DESC *InputTensor, *OutputValueTensor, *OutputIndexTensor;
                 UINT Axis, K, AxisDirection; } DML_TOP_K1_OPERATOR_DESC; /* TOP_K: no AxisDirection */
typedef struct { const DML_TENSOR_DESC *InputTensor, *OutputTensor; UINT AxisCount; const UINT *Axes;
                 UINT AxisDirection; } DML_ARGMAX_OPERATOR_DESC;           /* ARGMIN: the same */
typedef struct { UINT Function; const DML_TENSOR_DESC *InputTensor, *OutputTensor; UINT AxisCount;
                 const UINT *Axes; } DML_REDUCE_OPERATOR_DESC;
typedef struct { UINT RequiredDescriptorCount; UINT64 TemporaryResourceSize, PersistentResourceSize; } DML_BINDING_PROPERTIES;
typedef struct { ID3D12Resource *Buffer; UINT64 Offset, SizeInBytes; } DML_BUFFER_BINDING;
typedef struct { UINT Type; const void *Desc; } DML_BINDING_DESC;  /* Type 0: NONE, 1: BUFFER */
typedef struct IDMLObj { const struct IDMLVtbl *lpVtbl; } IDMLObj;
typedef struct { IDMLObj *Dispatchable; D3D12_CPU_DESCRIPTOR_HANDLE Cpu; D3D12_GPU_DESCRIPTOR_HANDLE Gpu;
                 UINT SizeInDescriptors; } DML_BINDING_TABLE_DESC;
/* One vtable shape per interface, all on IUnknown + IDMLObject (4 slots) [+ IDMLDeviceChild]. */
#define HEAD void *QueryInterface; void *AddRef; ULONG (STDMETHODCALLTYPE *Release)(void *); void *o1, *o2, *o3, *o4;
typedef struct IDMLVtbl { HEAD
    HRESULT (STDMETHODCALLTYPE *CheckFeatureSupport)(IDMLObj *, UINT, UINT, const void *, UINT, void *);
    HRESULT (STDMETHODCALLTYPE *CreateOperator)(IDMLObj *, const DML_OPERATOR_DESC *, REFIID, void **);
    HRESULT (STDMETHODCALLTYPE *CompileOperator)(IDMLObj *, IDMLObj *, UINT, REFIID, void **);
    HRESULT (STDMETHODCALLTYPE *CreateOperatorInitializer)(IDMLObj *, UINT, IDMLObj *const *, REFIID, void **);
    HRESULT (STDMETHODCALLTYPE *CreateCommandRecorder)(IDMLObj *, REFIID, void **);
    HRESULT (STDMETHODCALLTYPE *CreateBindingTable)(IDMLObj *, const DML_BINDING_TABLE_DESC *, REFIID, void **);
} IDMLDeviceVtbl;
typedef struct { HEAD void *GetDevice;   /* IDMLDispatchable: a struct return takes a hidden pointer */
    DML_BINDING_PROPERTIES *(STDMETHODCALLTYPE *GetBindingProperties)(IDMLObj *, DML_BINDING_PROPERTIES *);
} IDMLDispatchableVtbl;
typedef struct { HEAD void *GetDevice;
    void (STDMETHODCALLTYPE *BindInputs)(IDMLObj *, UINT, const DML_BINDING_DESC *);
    void (STDMETHODCALLTYPE *BindOutputs)(IDMLObj *, UINT, const DML_BINDING_DESC *);
    void (STDMETHODCALLTYPE *BindTemporaryResource)(IDMLObj *, const DML_BINDING_DESC *);
    void (STDMETHODCALLTYPE *BindPersistentResource)(IDMLObj *, const DML_BINDING_DESC *);
} IDMLBindingTableVtbl;
typedef struct { HEAD void *GetDevice;
    void (STDMETHODCALLTYPE *RecordDispatch)(IDMLObj *, ID3D12CommandList *, IDMLObj *, IDMLObj *);
} IDMLCommandRecorderVtbl;
#define DEV(o) ((const IDMLDeviceVtbl *)(o)->lpVtbl)
#define DISP(o) ((const IDMLDispatchableVtbl *)(o)->lpVtbl)
#define TABLE(o) ((const IDMLBindingTableVtbl *)(o)->lpVtbl)
#define REL(o) do { if (o) ((IUnknown *)(o))->lpVtbl->Release((IUnknown *)(o)); (o) = NULL; } while (0)
static const GUID IID_IDMLDevice_ = {0x6dbd6437, 0x96fd, 0x423f, {0xa9, 0x8c, 0xae, 0x5e, 0x7c, 0x2a, 0x57, 0x3f}};
static const GUID IID_IDMLOperator_ = {0x26caae7a, 0x3081, 0x4633, {0x95, 0x81, 0x22, 0x6f, 0xbe, 0x57, 0x69, 0x5d}};
static const GUID IID_IDMLCompiledOperator_ = {0x6b15e56a, 0xbf5c, 0x4902, {0x92, 0xd8, 0xda, 0x3a, 0x65, 0x0a, 0xfe, 0xa4}};
static const GUID IID_IDMLOperatorInitializer_ = {0x427c1113, 0x435c, 0x469c, {0x86, 0x76, 0x4d, 0x5d, 0xd0, 0x72, 0xf8, 0x13}};
static const GUID IID_IDMLBindingTable_ = {0x29c687dc, 0xde74, 0x4e3b, {0xab, 0x00, 0x11, 0x68, 0xf2, 0xfc, 0x3c, 0xfc}};
static const GUID IID_IDMLCommandRecorder_ = {0xe6857a76, 0x2e3e, 0x4fdd, {0xbf, 0xf4, 0x5d, 0x2b, 0xa1, 0x0f, 0xb4, 0x53}};
typedef HRESULT (WINAPI *CreateDeviceFn)(ID3D12Device *, UINT, UINT, REFIID, void **);

static ID3D12Device *d3d; static ID3D12CommandQueue *queue; static ID3D12CommandAllocator *alloc;
static ID3D12GraphicsCommandList *list; static ID3D12Fence *fence; static UINT64 fence_value;
static IDMLObj *dml, *recorder; static const char *failed_call = "";

static int cannot(const char *why, HRESULT hr) { printf("CANNOT RUN: %s (hr=0x%08lx)\n", why, (unsigned long)hr); return 2; }

/* Device, queue, list, fence and DirectML device; prints the versions. Returns 0, or prints CANNOT RUN and 2. */
static int setup(void) {
    wchar_t path[MAX_PATH]; char text[256] = "unknown"; DWORD ignored, size; UINT len;
    IDXGIFactory1 *factory = NULL; IDXGIAdapter1 *adapter = NULL; DXGI_ADAPTER_DESC1 ad; HRESULT hr;
    const char *(CDECL *wine_version)(void) = (const char *(CDECL *)(void))(void (*)(void))
        GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "wine_get_version");
    DWORD n = GetModuleFileNameW(NULL, path, MAX_PATH);
    while (n && path[n - 1] != L'\\') n--;
    wcscpy(path + n, L"DirectML.dll");  /* beside the .exe, never the older copy in System32 */
    HMODULE module = LoadLibraryW(path);
    if (!module) return cannot("no DirectML.dll beside this .exe (take it from the Microsoft.AI.DirectML NuGet package)", HRESULT_FROM_WIN32(GetLastError()));
    if ((size = GetFileVersionInfoSizeW(path, &ignored)) != 0) {
        void *data = malloc(size); VS_FIXEDFILEINFO *v = NULL;
        if (data && GetFileVersionInfoW(path, 0, size, data) && VerQueryValueW(data, L"\\", (void **)&v, &len) && v)
            snprintf(text, sizeof text, "%u.%u.%u.%u", HIWORD(v->dwFileVersionMS), LOWORD(v->dwFileVersionMS),
                     HIWORD(v->dwFileVersionLS), LOWORD(v->dwFileVersionLS));
        free(data);
    }
    printf("DirectML.dll %s (file version)\n", text);
    if (wine_version) printf("running under Wine %s (a software or translated adapter: not a Windows GPU driver)\n", wine_version());
    if (FAILED(hr = CreateDXGIFactory1(&IID_IDXGIFactory1, (void **)&factory))) return cannot("CreateDXGIFactory1 failed", hr);
    hr = IDXGIFactory1_EnumAdapters1(factory, 0, &adapter);  /* adapter 0: the default adapter */
    REL(factory);
    if (FAILED(hr)) return cannot("no DXGI adapter", hr);
    IDXGIAdapter1_GetDesc1(adapter, &ad);
    WideCharToMultiByte(CP_UTF8, 0, ad.Description, -1, text, sizeof text, NULL, NULL);
    printf("adapter: %s (vendor 0x%04x, device 0x%04x%s)\n", text, (unsigned)ad.VendorId, (unsigned)ad.DeviceId,
           (ad.Flags & DXGI_ADAPTER_FLAG_SOFTWARE) ? ", software" : "");
    hr = D3D12CreateDevice((IUnknown *)adapter, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&d3d);
    REL(adapter);
    if (FAILED(hr)) return cannot("D3D12CreateDevice failed", hr);
    D3D12_COMMAND_QUEUE_DESC qd = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    if (FAILED(hr = ID3D12Device_CreateCommandQueue(d3d, &qd, &IID_ID3D12CommandQueue, (void **)&queue)) ||
        FAILED(hr = ID3D12Device_CreateCommandAllocator(d3d, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator, (void **)&alloc)) ||
        FAILED(hr = ID3D12Device_CreateCommandList(d3d, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, alloc, NULL, &IID_ID3D12GraphicsCommandList, (void **)&list)) ||
        FAILED(hr = ID3D12GraphicsCommandList_Close(list)) ||
        FAILED(hr = ID3D12Device_CreateFence(d3d, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence)))
        return cannot("creating the D3D12 queue, list or fence failed", hr);
    CreateDeviceFn create = (CreateDeviceFn)(void (*)(void))GetProcAddress(module, "DMLCreateDevice1");
    if (!create) return cannot("DirectML.dll has no DMLCreateDevice1", E_NOINTERFACE);
    if (FAILED(hr = create(d3d, 0, 0x1000, &IID_IDMLDevice_, (void **)&dml))) return cannot("DMLCreateDevice1 failed", hr);
    if (FAILED(hr = DEV(dml)->CreateCommandRecorder(dml, &IID_IDMLCommandRecorder_, (void **)&recorder)))
        return cannot("IDMLDevice::CreateCommandRecorder failed", hr);
    static const UINT levels[] = {0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000, 0x5100, 0x5200, 0x6000, 0x6100, 0x6200, 0x6300, 0x6400};
    struct { UINT count; const UINT *levels; } query = {sizeof levels / sizeof *levels, levels};
    UINT max_level = 0;
    DEV(dml)->CheckFeatureSupport(dml, 1 /* DML_FEATURE_FEATURE_LEVELS */, sizeof query, &query, sizeof max_level, &max_level);
    printf("DirectML device: highest feature level 0x%04x\n\n", max_level);
    return 0;
}

typedef struct { UINT sizes[8]; DML_BUFFER_TENSOR_DESC buffer; DML_TENSOR_DESC desc; UINT64 bytes; } Tensor;
static UINT type_size(UINT t) { return t == DT_FLOAT64 || t == DT_INT64 || t == DT_UINT64 ? 8 : t == DT_FLOAT32 || t == DT_INT32 || t == DT_UINT32 ? 4 : t == DT_UINT8 || t == DT_INT8 ? 1 : 2; }
/* A packed buffer tensor (no strides); DirectML wants total sizes in multiples of 4 bytes. */
static const DML_TENSOR_DESC *tensor(Tensor *t, UINT type, UINT rank, const UINT *sizes) {
    t->bytes = type_size(type);
    for (UINT i = 0; i < rank; i++) t->sizes[i] = sizes[i], t->bytes *= sizes[i];
    DML_BUFFER_TENSOR_DESC b = {type, 0, rank, t->sizes, NULL, (t->bytes + 3) & ~3ull, 0};
    t->buffer = b;
    t->desc.Type = 1;
    t->desc.Desc = &t->buffer;
    return &t->desc;
}

static ID3D12Resource *buffer(UINT64 width, D3D12_HEAP_TYPE heap, D3D12_RESOURCE_STATES state) {
    D3D12_HEAP_PROPERTIES hp = {heap, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 0, 0};
    D3D12_RESOURCE_DESC rd = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, (width + 255) & ~255ull, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                              D3D12_TEXTURE_LAYOUT_ROW_MAJOR, heap == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS : D3D12_RESOURCE_FLAG_NONE};
    ID3D12Resource *r = NULL;
    return SUCCEEDED(ID3D12Device_CreateCommittedResource(d3d, &hp, D3D12_HEAP_FLAG_NONE, &rd, state, NULL, &IID_ID3D12Resource, (void **)&r)) ? r : NULL;
}
static void barrier(ID3D12Resource *r, D3D12_RESOURCE_STATES from, D3D12_RESOURCE_STATES to) {
    D3D12_RESOURCE_BARRIER b; memset(&b, 0, sizeof b);
    if (r) { b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION; b.Transition.pResource = r;
             b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES; b.Transition.StateBefore = from; b.Transition.StateAfter = to; }
    else b.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;  /* no resource: every UAV access */
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &b);
}
#define FAIL(call) do { failed_call = call; goto done; } while (0)

/* Creates, compiles, initializes and runs one operator: inputs then outputs, in the desc's member
 * order. Outputs are pre-filled with 0xA5 bytes. Returns S_OK, or the HRESULT of the call that
 * failed (named in failed_call). */
static HRESULT run(const DML_OPERATOR_DESC *desc, int n_in, Tensor *const *in, const void *const *in_data,
                   int n_out, Tensor *const *out, void *const *out_data) {
    IDMLObj *op = NULL, *compiled = NULL, *init = NULL, *init_table = NULL, *table = NULL;
    ID3D12DescriptorHeap *heap = NULL; ID3D12Resource *bufs[8] = {0}, *temp = NULL, *persistent = NULL, *up = NULL, *down = NULL;
    DML_BUFFER_BINDING bb[8], tb, pb; DML_BINDING_DESC bd[8], tbd = {1, &tb}, pbd = {1, &pb}, none = {0, NULL};
    DML_BINDING_PROPERTIES ip, ep; UINT64 at = 0, width[8]; int n = n_in + n_out, i; HRESULT hr; UINT8 *map;
    if (FAILED(hr = DEV(dml)->CreateOperator(dml, desc, &IID_IDMLOperator_, (void **)&op))) FAIL("IDMLDevice::CreateOperator");
    if (FAILED(hr = DEV(dml)->CompileOperator(dml, op, 0, &IID_IDMLCompiledOperator_, (void **)&compiled))) FAIL("IDMLDevice::CompileOperator");
    if (FAILED(hr = DEV(dml)->CreateOperatorInitializer(dml, 1, &compiled, &IID_IDMLOperatorInitializer_, (void **)&init))) FAIL("IDMLDevice::CreateOperatorInitializer");
    DISP(init)->GetBindingProperties(init, &ip);
    DISP(compiled)->GetBindingProperties(compiled, &ep);
    D3D12_DESCRIPTOR_HEAP_DESC hd = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, ip.RequiredDescriptorCount + ep.RequiredDescriptorCount + 1, D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    if (FAILED(hr = ID3D12Device_CreateDescriptorHeap(d3d, &hd, &IID_ID3D12DescriptorHeap, (void **)&heap))) FAIL("ID3D12Device::CreateDescriptorHeap");
    hr = E_OUTOFMEMORY;
    for (i = 0; i < n; i++) {
        width[i] = ((i < n_in ? in[i]->bytes : out[i - n_in]->bytes) + 255) & ~255ull;
        if (!width[i]) width[i] = 256;
        if (!(bufs[i] = buffer(width[i], D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COMMON))) FAIL("CreateCommittedResource");
        at += width[i];
    }
    UINT64 temp_size = ip.TemporaryResourceSize > ep.TemporaryResourceSize ? ip.TemporaryResourceSize : ep.TemporaryResourceSize;
    if ((temp_size && !(temp = buffer(temp_size, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COMMON))) ||
        (ep.PersistentResourceSize && !(persistent = buffer(ep.PersistentResourceSize, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COMMON))) ||
        !(up = buffer(at, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ)) ||
        !(down = buffer(at, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST))) FAIL("CreateCommittedResource");
    if (FAILED(hr = ID3D12Resource_Map(up, 0, NULL, (void **)&map))) FAIL("ID3D12Resource::Map");
    for (i = 0, at = 0; i < n; at += width[i++]) {
        memset(map + at, i < n_in ? 0 : 0xA5, (size_t)width[i]);
        if (i < n_in && in[i]->bytes) memcpy(map + at, in_data[i], (size_t)in[i]->bytes);
    }
    ID3D12Resource_Unmap(up, 0, NULL);
    /* Binding tables: the initializer's descriptors first, then the operator's. */
    D3D12_CPU_DESCRIPTOR_HANDLE cpu; D3D12_GPU_DESCRIPTOR_HANDLE gpu;
    heap->lpVtbl->GetCPUDescriptorHandleForHeapStart(heap, &cpu);  /* C: struct returns via a pointer */
    heap->lpVtbl->GetGPUDescriptorHandleForHeapStart(heap, &gpu);
    DML_BINDING_TABLE_DESC itd = {init, cpu, gpu, ip.RequiredDescriptorCount};
    if (FAILED(hr = DEV(dml)->CreateBindingTable(dml, &itd, &IID_IDMLBindingTable_, (void **)&init_table))) FAIL("IDMLDevice::CreateBindingTable");
    UINT step = ID3D12Device_GetDescriptorHandleIncrementSize(d3d, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    cpu.ptr += (SIZE_T)ip.RequiredDescriptorCount * step; gpu.ptr += (UINT64)ip.RequiredDescriptorCount * step;
    DML_BINDING_TABLE_DESC etd = {compiled, cpu, gpu, ep.RequiredDescriptorCount};
    if (FAILED(hr = DEV(dml)->CreateBindingTable(dml, &etd, &IID_IDMLBindingTable_, (void **)&table))) FAIL("IDMLDevice::CreateBindingTable");
    tb.Buffer = temp; tb.Offset = 0; tb.SizeInBytes = (temp_size + 255) & ~255ull;
    pb.Buffer = persistent; pb.Offset = 0; pb.SizeInBytes = (ep.PersistentResourceSize + 255) & ~255ull;
    if (ip.TemporaryResourceSize) TABLE(init_table)->BindTemporaryResource(init_table, &tbd);
    TABLE(init_table)->BindOutputs(init_table, 1, persistent ? &pbd : &none);
    for (i = 0; i < n; i++) { bb[i].Buffer = bufs[i]; bb[i].Offset = 0; bb[i].SizeInBytes = width[i]; bd[i].Type = 1; bd[i].Desc = &bb[i]; }
    TABLE(table)->BindInputs(table, n_in, bd);
    TABLE(table)->BindOutputs(table, n_out, bd + n_in);
    if (ep.TemporaryResourceSize) TABLE(table)->BindTemporaryResource(table, &tbd);
    if (persistent) TABLE(table)->BindPersistentResource(table, &pbd);
    /* One command list: upload, initialize, dispatch, read back. */
    if (FAILED(hr = ID3D12CommandAllocator_Reset(alloc)) || FAILED(hr = ID3D12GraphicsCommandList_Reset(list, alloc, NULL))) FAIL("ID3D12GraphicsCommandList::Reset");
    for (i = 0, at = 0; i < n; at += width[i++]) {
        ID3D12GraphicsCommandList_CopyBufferRegion(list, bufs[i], 0, up, at, width[i]);  /* promotes COMMON to COPY_DEST */
        barrier(bufs[i], D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    }
    if (temp) barrier(temp, D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    if (persistent) barrier(persistent, D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 1, &heap);
    ((const IDMLCommandRecorderVtbl *)recorder->lpVtbl)->RecordDispatch(recorder, (ID3D12CommandList *)list, init, init_table);
    barrier(NULL, 0, 0);
    ((const IDMLCommandRecorderVtbl *)recorder->lpVtbl)->RecordDispatch(recorder, (ID3D12CommandList *)list, compiled, table);
    barrier(NULL, 0, 0);
    for (i = n_in, at = 0; i < n; at += width[i++]) {
        barrier(bufs[i], D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
        ID3D12GraphicsCommandList_CopyBufferRegion(list, down, at, bufs[i], 0, width[i]);
    }
    if (FAILED(hr = ID3D12GraphicsCommandList_Close(list))) FAIL("ID3D12GraphicsCommandList::Close");
    ID3D12CommandQueue_ExecuteCommandLists(queue, 1, (ID3D12CommandList *const *)&list);
    if (FAILED(hr = ID3D12CommandQueue_Signal(queue, fence, ++fence_value))) FAIL("ID3D12CommandQueue::Signal");
    HANDLE event = CreateEventW(NULL, FALSE, FALSE, NULL);
    if (ID3D12Fence_GetCompletedValue(fence) < fence_value) {
        ID3D12Fence_SetEventOnCompletion(fence, fence_value, event);
        if (WaitForSingleObject(event, 30000) != WAIT_OBJECT_0) { CloseHandle(event); hr = HRESULT_FROM_WIN32(WAIT_TIMEOUT); FAIL("waiting for the GPU"); }
    }
    CloseHandle(event);
    if (FAILED(hr = ID3D12Device_GetDeviceRemovedReason(d3d))) FAIL("the D3D12 device was removed");
    if (FAILED(hr = ID3D12Resource_Map(down, 0, NULL, (void **)&map))) FAIL("ID3D12Resource::Map");
    for (i = 0, at = 0; i < n_out; at += width[n_in + i++]) memcpy(out_data[i], map + at, (size_t)out[i]->bytes);
    ID3D12Resource_Unmap(down, 0, NULL);
    hr = S_OK;
done:
    for (i = 0; i < 8; i++) REL(bufs[i]);
    REL(temp); REL(persistent); REL(up); REL(down); REL(heap); REL(table); REL(init_table); REL(init); REL(compiled); REL(op);
    return hr;
}
static void print_refusal(HRESULT hr) {
    printf("refused: %s failed: hr=0x%08lx%s\n", failed_call, (unsigned long)hr, hr == E_INVALIDARG ? " (E_INVALIDARG)" : "");
}

/* DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT for one type: 1, 0, or -1 when the query fails. */
static int type_supported(UINT type) {
    BOOL supported = FALSE;
    return FAILED(DEV(dml)->CheckFeatureSupport(dml, 0, sizeof type, &type, sizeof supported, &supported)) ? -1 : supported != 0;
}

enum { ARGMAX, ARGMIN, REDUCE_MAX, REDUCE_MIN };
static const char *const OP_NAMES[] = {"DML_OPERATOR_ARGMAX", "DML_OPERATOR_ARGMIN", "DML_OPERATOR_REDUCE (ARGMAX)", "DML_OPERATOR_REDUCE (ARGMIN)"};
/* ARGMAX / ARGMIN / REDUCE over `axes`; the output keeps the reduced axes as size 1. */
static HRESULT arg(int which, UINT type, UINT rank, const UINT *sizes, UINT n_axes, const UINT *axes, UINT direction,
                   UINT index_type, const void *x, void *indices) {
    Tensor in, out; UINT out_sizes[8];
    for (UINT i = 0; i < rank; i++) {
        out_sizes[i] = sizes[i];
        for (UINT a = 0; a < n_axes; a++) if (axes[a] == i) out_sizes[i] = 1;
    }
    const DML_TENSOR_DESC *ind = tensor(&in, type, rank, sizes), *outd = tensor(&out, index_type, rank, out_sizes);
    DML_ARGMAX_OPERATOR_DESC a = {ind, outd, n_axes, axes, direction};  /* DML_ARGMIN_OPERATOR_DESC: the same */
    DML_REDUCE_OPERATOR_DESC r = {which == REDUCE_MAX ? REDUCE_ARGMAX : REDUCE_ARGMIN, ind, outd, n_axes, axes};
    DML_OPERATOR_DESC op = {which == ARGMAX ? OP_ARGMAX : which == ARGMIN ? OP_ARGMIN : OP_REDUCE, which < REDUCE_MAX ? (const void *)&a : (const void *)&r};
    Tensor *ins[] = {&in}, *outs[] = {&out};
    const void *in_data[] = {x};
    void *out_data[] = {indices};
    return run(&op, 1, ins, in_data, 1, outs, out_data);
}
static unsigned long long index_at(UINT index_type, const void *buffer, int i) {
    return type_size(index_type) == 8 ? ((const unsigned long long *)buffer)[i] : ((const UINT *)buffer)[i];
}

static void pack(UINT type, const double *v, int n, void *out) {
    for (int i = 0; i < n; i++) switch (type) {
        case DT_FLOAT32: ((float *)out)[i] = (float)v[i]; break;
        case DT_INT8: case DT_UINT8: ((unsigned char *)out)[i] = (unsigned char)(int)v[i]; break;
        case DT_INT32: case DT_UINT32: ((UINT *)out)[i] = (UINT)(int)v[i]; break;
        default: ((unsigned long long *)out)[i] = (unsigned long long)(long long)v[i]; break;
    }
}
static int reproduced = 1;
static void check(const char *label, HRESULT hr, UINT index_type, const void *out, int n, const UINT *want) {
    printf("  %s: output ", label);
    if (FAILED(hr)) { print_refusal(hr); reproduced = 0; return; }
    for (int i = 0; i < n; i++) {
        printf("%s%llu", i ? ", " : "[", index_at(index_type, out, i));
        if (index_at(index_type, out, i) != want[i]) reproduced = 0;
    }
    printf("], documents [");
    for (int i = 0; i < n; i++) printf("%s%u", i ? ", " : "", want[i]);
    printf("]\n");
}

int main(void) {
    static const double x[4] = {1, 3, 2, 3};
    static const struct { const char *name; UINT type; } idx[] = {{"INT32", DT_INT32}, {"INT64", DT_INT64}, {"UINT32", DT_UINT32}, {"UINT64", DT_UINT64}},
        in[] = {{"float32", DT_FLOAT32}, {"int8", DT_INT8}, {"uint8", DT_UINT8}, {"int32", DT_INT32}, {"uint32", DT_UINT32}, {"int64", DT_INT64}, {"uint64", DT_UINT64}};
    UINT n = 4, axis0 = 0, axis7 = 7, one = 1, three = 3, zero = 0, two[2] = {0, 2};
    unsigned char data[32]; unsigned long long out[4]; char label[160];
    int status = setup();
    if (status) return status;
    printf("What ARGMAX, ARGMIN and REDUCE accept, and their answers beside the documents' (input [1, 3, 2, 3], axis 0)\n");
    int f16 = type_supported(DT_FLOAT16), i16 = type_supported(DT_INT16), u16 = type_supported(DT_UINT16);
    printf("  the device's DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT: FLOAT16=%d INT16=%d UINT16=%d (FLOAT32=%d INT64=%d UINT64=%d)\n",
           f16, i16, u16, type_supported(DT_FLOAT32), type_supported(DT_INT64), type_supported(DT_UINT64));
    if (f16 || i16 || u16) reproduced = 0;
    printf("  FLOAT16, INT16, UINT16 reported unsupported: %s\n", reproduced ? "yes" : "no");
    pack(DT_FLOAT32, x, 4, data);
    for (int i = 0; i < 4; i++) {
        for (UINT dir = INCREASING; dir <= DECREASING; dir++) {
            snprintf(label, sizeof label, "%s indices, float32 [1, 3, 2, 3], DML_OPERATOR_ARGMAX%s", idx[i].name, dir ? " DECREASING" : "");
            check(label, arg(ARGMAX, DT_FLOAT32, 1, &n, 1, &axis0, dir, idx[i].type, data, out), idx[i].type, out, 1, dir ? &three : &one);
        }
        snprintf(label, sizeof label, "%s indices, float32 [1, 3, 2, 3], DML_OPERATOR_ARGMIN", idx[i].name);
        check(label, arg(ARGMIN, DT_FLOAT32, 1, &n, 1, &axis0, INCREASING, idx[i].type, data, out), idx[i].type, out, 1, &zero);
    }
    for (int t = 0; t < 7; t++) {
        pack(in[t].type, x, 4, data);
        for (int w = ARGMAX; w <= REDUCE_MIN; w++) {
            snprintf(label, sizeof label, "%s [1, 3, 2, 3], %s", in[t].name, OP_NAMES[w]);
            check(label, arg(w, in[t].type, 1, &n, 1, &axis0, INCREASING, DT_UINT32, data, out), DT_UINT32, out, 1,
                  w == ARGMAX || w == REDUCE_MAX ? &one : &zero);
        }
    }
    static const UINT s8[8] = {1, 1, 1, 1, 1, 1, 2, 3};
    float x8[6] = {0, 0, 0, 0, 0, 1};
    for (int w = ARGMAX; w <= REDUCE_MAX; w += 2) {
        snprintf(label, sizeof label, "8-D float32 of shape [1, 1, 1, 1, 1, 1, 2, 3] (rows [0, 0, 0], [0, 0, 1]), axis 7, %s", OP_NAMES[w]);
        check(label, arg(w, DT_FLOAT32, 8, s8, 1, &axis7, INCREASING, DT_UINT32, x8, out), DT_UINT32, out, 2, two);
    }
    printf("(REPRODUCED: every one accepted and right, and the device reports FLOAT16, INT16, UINT16 unsupported)\n");
    printf(reproduced ? "REPRODUCED\n" : "NOT REPRODUCED\n");
    return reproduced ? 0 : 1;
}
