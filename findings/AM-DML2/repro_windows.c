/* DirectML's DML_OPERATOR_ARGMAX and DML_OPERATOR_ARGMIN with AxisDirection DML_AXIS_DIRECTION_DECREASING ("the
 * index of the last maximum-valued element") give 0, not 2, on float32 [NaN, NaN, NaN], where every element ties
 * with every other whichever place NaN is given.
 *
 * Windows: DirectML.dll (NuGet package Microsoft.AI.DirectML, bin\x64-win\DirectML.dll) beside the .exe; build
 * with `cl repro_windows.c` or `x86_64-w64-mingw32-gcc repro_windows.c -ld3d12 -ldxgi -lversion`. Runs on adapter 0.
 * Last line: REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2). */
#define COBJMACROS
#include <windows.h>
#include <initguid.h>
#include <d3d12.h>
#include <dxgi1_4.h>
#include <stdio.h>
#include <math.h>
#include <string.h>
#ifdef _MSC_VER
#pragma comment(lib, "d3d12.lib")
#pragma comment(lib, "dxgi.lib")
#pragma comment(lib, "version.lib")
#endif

/* The few declarations used from DirectML.h (which mingw lacks), with their values there. */
enum { DT_FLOAT32 = 1, DT_FLOAT16, DT_UINT32, DT_UINT16, DT_UINT8, DT_INT32, DT_INT16, DT_INT8, DT_FLOAT64, DT_UINT64,
       DT_INT64 }; /* DML_TENSOR_DATA_TYPE */
static const UINT BYTES[] = {0, 4, 2, 4, 2, 1, 4, 2, 1, 8, 8, 8};
typedef struct { UINT DataType, Flags, DimensionCount; const UINT *Sizes, *Strides; UINT64 TotalTensorSizeInBytes;
                 UINT GuaranteedBaseOffsetAlignment; } DML_BUFFER_TENSOR_DESC;
typedef struct { UINT Type; const void *Desc; } DML_DESC; /* DML_TENSOR_DESC, DML_OPERATOR_DESC, DML_BINDING_DESC */
typedef struct { UINT RequiredDescriptorCount; UINT64 TemporaryResourceSize, PersistentResourceSize; }
    DML_BINDING_PROPERTIES;
typedef struct { ID3D12Resource *Buffer; UINT64 Offset, SizeInBytes; } DML_BUFFER_BINDING;
/* Each DirectML interface used starts with IUnknown's 3 methods and IDMLObject's 4, then IDMLDevice's or
 * IDMLDeviceChild::GetDevice and its own: one vtable type serves them all, each slot's methods in a union. */
typedef struct Dml { const struct DmlVtbl *lpVtbl; } Dml;
typedef struct { Dml *Dispatchable; D3D12_CPU_DESCRIPTOR_HANDLE Cpu; D3D12_GPU_DESCRIPTOR_HANDLE Gpu; UINT Size; }
    DML_BINDING_TABLE_DESC;
#define METHOD(ret, name, ...) ret(STDMETHODCALLTYPE *name)(Dml *, __VA_ARGS__)
typedef struct DmlVtbl {
    void *QueryInterface, *AddRef, *Release, *GetPrivateData, *SetPrivateData, *SetPrivateDataInterface, *SetName;
    union { METHOD(HRESULT, CheckFeatureSupport, UINT, UINT, const void *, UINT, void *); void *GetDevice; };
    union { METHOD(HRESULT, CreateOperator, const DML_DESC *, REFIID, void **); /* IDMLDevice */
            METHOD(DML_BINDING_PROPERTIES *, GetBindingProperties, DML_BINDING_PROPERTIES *); /* IDMLDispatchable */
            METHOD(void, BindInputs, UINT, const DML_DESC *); /* IDMLBindingTable */
            METHOD(void, RecordDispatch, ID3D12GraphicsCommandList *, Dml *, Dml *); }; /* IDMLCommandRecorder */
    union { METHOD(HRESULT, CompileOperator, Dml *, UINT, REFIID, void **);
            METHOD(void, BindOutputs, UINT, const DML_DESC *); };
    union { METHOD(HRESULT, CreateOperatorInitializer, UINT, Dml *const *, REFIID, void **);
            METHOD(void, BindTemporaryResource, const DML_DESC *); };
    union { METHOD(HRESULT, CreateCommandRecorder, REFIID, void **);
            METHOD(void, BindPersistentResource, const DML_DESC *); };
    METHOD(HRESULT, CreateBindingTable, const DML_BINDING_TABLE_DESC *, REFIID, void **);
} DmlVtbl;
DEFINE_GUID(IID_IDMLDevice, 0x6dbd6437, 0x96fd, 0x423f, 0xa9, 0x8c, 0xae, 0x5e, 0x7c, 0x2a, 0x57, 0x3f);
DEFINE_GUID(IID_IDMLOperator, 0x26caae7a, 0x3081, 0x4633, 0x95, 0x81, 0x22, 0x6f, 0xbe, 0x57, 0x69, 0x5d);
DEFINE_GUID(IID_IDMLCompiledOperator, 0x6b15e56a, 0xbf5c, 0x4902, 0x92, 0xd8, 0xda, 0x3a, 0x65, 0x0a, 0xfe, 0xa4);
DEFINE_GUID(IID_IDMLOperatorInitializer, 0x427c1113, 0x435c, 0x469c, 0x86, 0x76, 0x4d, 0x5d, 0xd0, 0x72, 0xf8, 0x13);
DEFINE_GUID(IID_IDMLBindingTable, 0x29c687dc, 0xde74, 0x4e3b, 0xab, 0x00, 0x11, 0x68, 0xf2, 0xfc, 0x3c, 0xfc);
DEFINE_GUID(IID_IDMLCommandRecorder, 0xe6857a76, 0x2e3e, 0x4fdd, 0xbf, 0xf4, 0x5d, 0x2b, 0xa1, 0x0f, 0xb4, 0x53);

static ID3D12Device *d3d; static ID3D12CommandQueue *queue; static ID3D12CommandAllocator *allocator;
static ID3D12GraphicsCommandList *list; static ID3D12Fence *fence; static UINT64 fenced; static Dml *dml, *recorder;
static HRESULT hr; static const char *failed; /* the call that failed last */
#define TRY(call, what) if (FAILED(hr = (call))) return printf("%s failed: hr=0x%08lX%s\n", failed = what, \
    (unsigned long)hr, hr == E_INVALIDARG ? " (E_INVALIDARG)" : ""), hr
#define SETUP(call, what) \
    if (FAILED(hr = (call))) return printf("CANNOT RUN: %s failed: hr=0x%08lX\n", what, (unsigned long)hr), 2

/* DirectML.dll from beside the .exe, a D3D12 device on adapter 0 and a DirectML device; prints their versions. */
static int setup(void) {
    wchar_t path[MAX_PATH]; char name[128]; static char info[8192]; DWORD n = GetModuleFileNameW(NULL, path, MAX_PATH);
    VS_FIXEDFILEINFO *v; UINT size; IDXGIFactory1 *factory; IDXGIAdapter1 *adapter; DXGI_ADAPTER_DESC1 ad;
    while (n && path[n - 1] != L'\\') n--;
    wcscpy(path + n, L"DirectML.dll");
    HMODULE module = LoadLibraryW(path);
    FARPROC create = module ? GetProcAddress(module, "DMLCreateDevice1") : NULL;
    if (!create) return printf("CANNOT RUN: no DirectML.dll beside the .exe (NuGet Microsoft.AI.DirectML)\n"), 2;
    if (GetFileVersionInfoW(path, 0, sizeof info, info) && VerQueryValueW(info, L"\\", (void **)&v, &size))
        printf("DirectML.dll %u.%u.%u.%u | ", HIWORD(v->dwFileVersionMS), LOWORD(v->dwFileVersionMS),
               HIWORD(v->dwFileVersionLS), LOWORD(v->dwFileVersionLS));
    SETUP(CreateDXGIFactory1(&IID_IDXGIFactory1, (void **)&factory), "CreateDXGIFactory1");
    SETUP(IDXGIFactory1_EnumAdapters1(factory, 0, &adapter), "IDXGIFactory1::EnumAdapters1");
    IDXGIAdapter1_GetDesc1(adapter, &ad);
    WideCharToMultiByte(CP_UTF8, 0, ad.Description, -1, name, sizeof name, NULL, NULL);
    printf("adapter 0: %s\n\n", name);
    SETUP(D3D12CreateDevice((IUnknown *)adapter, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&d3d),
          "D3D12CreateDevice");
    D3D12_COMMAND_QUEUE_DESC qd = {D3D12_COMMAND_LIST_TYPE_DIRECT};
    SETUP(ID3D12Device_CreateCommandQueue(d3d, &qd, &IID_ID3D12CommandQueue, (void **)&queue), "CreateCommandQueue");
    SETUP(ID3D12Device_CreateCommandAllocator(d3d, qd.Type, &IID_ID3D12CommandAllocator, (void **)&allocator),
          "CreateCommandAllocator");
    SETUP(ID3D12Device_CreateCommandList(d3d, 0, qd.Type, allocator, NULL, &IID_ID3D12GraphicsCommandList,
                                         (void **)&list), "CreateCommandList");
    SETUP(ID3D12Device_CreateFence(d3d, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), "CreateFence");
    SETUP(((HRESULT(WINAPI *)(ID3D12Device *, UINT, UINT, REFIID, void **))(void (*)(void))create)(
              d3d, 0, 0x1000 /* DML_FEATURE_LEVEL_1_0 */, &IID_IDMLDevice, (void **)&dml), "DMLCreateDevice1");
    SETUP(dml->lpVtbl->CreateCommandRecorder(dml, &IID_IDMLCommandRecorder, (void **)&recorder),
          "CreateCommandRecorder");
    return 0;
}

/* A tensor: a packed buffer of `rank` sizes, with its data (an input) or room for it (an output). */
typedef struct { UINT sizes[8]; DML_BUFFER_TENSOR_DESC buffer; DML_DESC desc; void *data; } Tensor;
static const DML_DESC *tensor(Tensor *t, UINT type, UINT rank, const UINT *sizes, const void *data) {
    DML_BUFFER_TENSOR_DESC b = {type, 0, rank, t->sizes, NULL, BYTES[type]};
    for (UINT i = 0; i < rank; i++) t->sizes[i] = sizes[i], b.TotalTensorSizeInBytes *= sizes[i];
    b.TotalTensorSizeInBytes = (b.TotalTensorSizeInBytes + 3) & ~3ull; /* DirectML wants a multiple of 4 */
    t->buffer = b, t->data = (void *)data, t->desc.Type = 1 /* DML_TENSOR_TYPE_BUFFER */, t->desc.Desc = &t->buffer;
    return &t->desc;
}

static ID3D12Resource *buffer(UINT64 width, D3D12_HEAP_TYPE heap, D3D12_RESOURCE_STATES state) {
    D3D12_HEAP_PROPERTIES hp = {heap};
    D3D12_RESOURCE_DESC rd = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                              D3D12_TEXTURE_LAYOUT_ROW_MAJOR};
    ID3D12Resource *r = NULL;
    if (heap == D3D12_HEAP_TYPE_DEFAULT) rd.Flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS;
    ID3D12Device_CreateCommittedResource(d3d, &hp, 0, &rd, state, NULL, &IID_ID3D12Resource, (void **)&r);
    return r;
}
static void barrier(ID3D12Resource *r, D3D12_RESOURCE_STATES from, D3D12_RESOURCE_STATES to) {
    D3D12_RESOURCE_BARRIER b = {r ? D3D12_RESOURCE_BARRIER_TYPE_TRANSITION : D3D12_RESOURCE_BARRIER_TYPE_UAV};
    b.Transition.pResource = r, b.Transition.StateBefore = from, b.Transition.StateAfter = to;
    b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &b);
}

/* Creates, compiles, initializes and runs one operator on n tensors: its inputs, then its outputs, in its desc's
 * order (outputs start as 0xA5 bytes). Returns S_OK, or prints the call that failed and returns its HRESULT. */
static HRESULT run(UINT type, const void *op_desc, int n_in, int n, Tensor **t) {
    DML_DESC desc = {type, op_desc}, bind[10], none = {0}; DML_BUFFER_BINDING b[10]; DML_BINDING_PROPERTIES ip, ep;
    Dml *op, *compiled, *init, *init_table, *table; ID3D12DescriptorHeap *heap; UINT64 at[11] = {0}; UINT8 *map;
    TRY(dml->lpVtbl->CreateOperator(dml, &desc, &IID_IDMLOperator, (void **)&op), "IDMLDevice::CreateOperator");
    TRY(dml->lpVtbl->CompileOperator(dml, op, 0, &IID_IDMLCompiledOperator, (void **)&compiled),
        "IDMLDevice::CompileOperator");
    TRY(dml->lpVtbl->CreateOperatorInitializer(dml, 1, &compiled, &IID_IDMLOperatorInitializer, (void **)&init),
        "IDMLDevice::CreateOperatorInitializer");
    init->lpVtbl->GetBindingProperties(init, &ip), compiled->lpVtbl->GetBindingProperties(compiled, &ep);
    /* One buffer holds the tensors, then the temporary and the persistent resources, each at 256-byte alignment. */
    for (int i = 0; i < n + 2; i++) {
        UINT64 bytes = i < n ? t[i]->buffer.TotalTensorSizeInBytes : i > n ? ep.PersistentResourceSize
                     : max(ip.TemporaryResourceSize, ep.TemporaryResourceSize);
        at[i + 1] = at[i] + ((bytes + 255) & ~255ull);
        b[i].Offset = at[i], b[i].SizeInBytes = bytes, bind[i].Type = bytes != 0, bind[i].Desc = &b[i]; /* BUFFER */
    }
    ID3D12Resource *gpu = buffer(at[n + 2], D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COMMON);
    ID3D12Resource *up = buffer(at[n + 2], D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ);
    ID3D12Resource *down = buffer(at[n + 2], D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST);
    if (!gpu || !up || !down) return printf("ID3D12Device::CreateCommittedResource failed\n"), E_OUTOFMEMORY;
    TRY(ID3D12Resource_Map(up, 0, NULL, (void **)&map), "ID3D12Resource::Map");
    memset(map, 0xA5, at[n + 2]);
    for (int i = 0; i < n + 2; i++) b[i].Buffer = gpu;
    for (int i = 0; i < n_in; i++) memcpy(map + at[i], t[i]->data, b[i].SizeInBytes);
    ID3D12Resource_Unmap(up, 0, NULL);
    /* A descriptor heap: the initializer's descriptors, then the operator's. */
    D3D12_DESCRIPTOR_HEAP_DESC hd = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV,
                                     ip.RequiredDescriptorCount + ep.RequiredDescriptorCount,
                                     D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE};
    TRY(ID3D12Device_CreateDescriptorHeap(d3d, &hd, &IID_ID3D12DescriptorHeap, (void **)&heap), "CreateDescriptorHeap");
    DML_BINDING_TABLE_DESC itd = {init, {0}, {0}, ip.RequiredDescriptorCount};
    DML_BINDING_TABLE_DESC etd = {compiled, {0}, {0}, ep.RequiredDescriptorCount};
    heap->lpVtbl->GetCPUDescriptorHandleForHeapStart(heap, &itd.Cpu); /* in C: the struct comes back by pointer */
    heap->lpVtbl->GetGPUDescriptorHandleForHeapStart(heap, &itd.Gpu);
    UINT skip = ip.RequiredDescriptorCount * ID3D12Device_GetDescriptorHandleIncrementSize(d3d, hd.Type);
    etd.Cpu.ptr = itd.Cpu.ptr + skip, etd.Gpu.ptr = itd.Gpu.ptr + skip;
    TRY(dml->lpVtbl->CreateBindingTable(dml, &itd, &IID_IDMLBindingTable, (void **)&init_table), "CreateBindingTable");
    TRY(dml->lpVtbl->CreateBindingTable(dml, &etd, &IID_IDMLBindingTable, (void **)&table), "CreateBindingTable");
    if (ip.TemporaryResourceSize) init_table->lpVtbl->BindTemporaryResource(init_table, &bind[n]);
    init_table->lpVtbl->BindOutputs(init_table, 1, &bind[n + 1]); /* the persistent resource, if any */
    table->lpVtbl->BindInputs(table, n_in, bind), table->lpVtbl->BindOutputs(table, n - n_in, bind + n_in);
    if (ep.TemporaryResourceSize) table->lpVtbl->BindTemporaryResource(table, &bind[n]);
    table->lpVtbl->BindPersistentResource(table, ep.PersistentResourceSize ? &bind[n + 1] : &none);
    /* Upload, initialize, run, read back; then wait. */
    ID3D12GraphicsCommandList_CopyBufferRegion(list, gpu, 0, up, 0, at[n + 2]);
    barrier(gpu, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 1, &heap);
    recorder->lpVtbl->RecordDispatch(recorder, list, init, init_table);
    barrier(NULL, 0, 0);
    recorder->lpVtbl->RecordDispatch(recorder, list, compiled, table);
    barrier(gpu, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyBufferRegion(list, down, 0, gpu, 0, at[n + 2]);
    TRY(ID3D12GraphicsCommandList_Close(list), "ID3D12GraphicsCommandList::Close");
    ID3D12CommandQueue_ExecuteCommandLists(queue, 1, (ID3D12CommandList **)&list);
    TRY(ID3D12CommandQueue_Signal(queue, fence, ++fenced), "ID3D12CommandQueue::Signal");
    TRY(ID3D12Fence_SetEventOnCompletion(fence, fenced, NULL), "ID3D12Fence::SetEventOnCompletion"); /* NULL: blocks */
    TRY(ID3D12Device_GetDeviceRemovedReason(d3d), "the D3D12 device was removed");
    TRY(ID3D12Resource_Map(down, 0, NULL, (void **)&map), "ID3D12Resource::Map");
    for (int i = n_in; i < n; i++) memcpy(t[i]->data, map + at[i], b[i].SizeInBytes);
    ID3D12CommandAllocator_Reset(allocator), ID3D12GraphicsCommandList_Reset(list, allocator, NULL);
    return S_OK; /* everything it made is left to the process's end */
}

enum { REDUCE = 55, ARGMIN = 137, ARGMAX = 138 }; /* DML_OPERATOR_TYPE */
typedef struct { const DML_DESC *InputTensor, *OutputTensor; UINT AxisCount; const UINT *Axes; UINT AxisDirection; }
    DML_ARGMAX_OPERATOR_DESC; /* DML_ARGMIN_OPERATOR_DESC is the same */
typedef struct { UINT Function; const DML_DESC *InputTensor, *OutputTensor; UINT AxisCount; const UINT *Axes; }
    DML_REDUCE_OPERATOR_DESC; /* Function: DML_REDUCE_FUNCTION_ARGMAX 0, DML_REDUCE_FUNCTION_ARGMIN 1 */
static const char *const NAME[] = {"DML_OPERATOR_ARGMAX", "DML_OPERATOR_ARGMIN", "DML_OPERATOR_REDUCE ARGMAX",
                                   "DML_OPERATOR_REDUCE ARGMIN"};

/* ARGMAX (which 0), ARGMIN (1), REDUCE with DML_REDUCE_FUNCTION_ARGMAX (2) or _ARGMIN (3) over `axes`, which the
 * output keeps as size 1; `direction`: DML_AXIS_DIRECTION_INCREASING (0) or DECREASING (1), ARGMAX/ARGMIN only. */
static HRESULT arg(int which, UINT direction, UINT type, UINT rank, const UINT *sizes, UINT n_axes, const UINT *axes,
                   UINT index_type, const void *x, void *out) {
    Tensor in, o; UINT out_sizes[8];
    for (UINT d = 0; d < rank; d++) {
        out_sizes[d] = sizes[d];
        for (UINT a = 0; a < n_axes; a++) if (axes[a] == d) out_sizes[d] = 1;
    }
    const DML_DESC *input = tensor(&in, type, rank, sizes, x), *output = tensor(&o, index_type, rank, out_sizes, out);
    DML_ARGMAX_OPERATOR_DESC a = {input, output, n_axes, axes, direction};
    DML_REDUCE_OPERATOR_DESC r = {which - 2, input, output, n_axes, axes};
    return run(which == 0 ? ARGMAX : which == 1 ? ARGMIN : REDUCE, which < 2 ? (void *)&a : (void *)&r, 1, 2,
               (Tensor *[]){&in, &o});
}

int main(void) {
    const float x[3] = {NAN, NAN, NAN};
    UINT n = 3, axis = 0; int reproduced = 0;
    if (setup()) return 2;
    for (int which = 0; which < 2; which++)
        for (int direction = 1; direction >= 0; direction--) { /* DECREASING (1), then INCREASING (0) */
            UINT out[1];
            printf("float32 [NaN, NaN, NaN], axis 0, %s, AxisDirection %s:\n    output:    ", NAME[which],
                   direction ? "DECREASING" : "INCREASING");
            if (FAILED(arg(which, direction, DT_FLOAT32, 1, &n, 1, &axis, DT_UINT32, x, out))) continue;
            printf("[%u]\n    documents: [%u] (the %s of three tied elements)\n", out[0], direction ? 2 : 0,
                   direction ? "last" : "first");
            if (direction && out[0] != 2) reproduced = 1;
        }
    printf(reproduced ? "REPRODUCED\n" : "NOT REPRODUCED\n");
    return !reproduced;
}
