"""`ort-webgpu`: ONNX Runtime's WebGPU execution provider as a native plugin (the
onnxruntime-ep-webgpu wheel; the `[ort-webgpu]` extra): WGSL shaders through Dawn, here on
Vulkan, on SwiftShader (the CPU Vulkan driver Debian's Chromium ships; `setup vulkan`).

The plugin library is registered with ONNX Runtime (`register_execution_provider_library`), and
each session is given the plugin's device (`add_provider_for_devices`) with CPU fall-back
disabled, so a node the provider does not take refuses the session: that graph's `error`, a
placement result, as ort-web-webgpu gives in the browser. Without a GPU the plugin offers its
device only with `ORT_WEBGPU_EP_ALLOW_SOFTWARE_ADAPTER=1` (its own switch, which it announces
as it loads), and its worker's Vulkan loader sees SwiftShader's ICD alone: the only adapter Dawn
can find is the Vulkan device the description names."""

from __future__ import annotations

from importlib import metadata
from typing import Any

from conformance.backends import vulkan
from conformance.backends.base import EVERY_OPERATOR, Availability, WorkerLaunch
from conformance.backends.install_hint import extra_hint
from conformance.backends.ort_probe import provider_session_works
from conformance.backends.ort_session import FALLBACK_REFUSED, OrtBackend, ort_module
from conformance.backends.record import BackendRecord

PINNED = "0.4.0"  # constraints.txt; the version tests/baselines/ort-webgpu.yaml was recorded with
PLUGIN = "onnxruntime-ep-webgpu"
DRIVER = "swiftshader"  # Dawn refuses lavapipe ("shaderUniform*ArrayDynamicIndexing required")
SOFTWARE_ADAPTER = "ORT_WEBGPU_EP_ALLOW_SOFTWARE_ADAPTER"
_registered: dict[str, list[Any]] = {}  # "devices": the plugin's, once its library is registered here


class OrtWebGpu(OrtBackend):
    provider = "WebGpuExecutionProvider"
    package_hint = extra_hint("ort-webgpu", f"{PLUGIN}=={PINNED}")
    retry_behind_identity = False  # the browser's provider is not offered a wrapped graph either
    # With fall-back disabled, a node the plugin does not take is sometimes left with no provider
    # at all, and the session fails in a later pass instead of saying so.
    declined_markers = (FALLBACK_REFUSED, "!node_provider_type.empty() was false")

    def worker_launch(self) -> WorkerLaunch | None:
        launch = vulkan.launch(DRIVER)
        return WorkerLaunch(env={**launch.env, SOFTWARE_ADAPTER: "1"})

    def availability(self) -> Availability:
        driver = vulkan.availability(DRIVER)
        if not driver.available:
            return driver
        try:
            devices = _devices()
        except ImportError as exc:
            return Availability(False, f"{PLUGIN} is not installed ({exc}); {self.package_hint}")
        except Exception as exc:
            return Availability(False, f"the WebGPU plugin cannot load: {type(exc).__name__}: "
                                       f"{' '.join(str(exc).split())[:400]}")
        if not devices:
            return Availability(False, "the WebGPU plugin offers no device (is "
                                       f"{SOFTWARE_ADAPTER}=1 set, and a Vulkan driver there?)")
        found = vulkan.physical_devices()
        if len(found) != 1 or not vulkan.confirms(DRIVER, found[0]["name"]):
            return Availability(False, f"the worker's Vulkan loader sees {[d['name'] for d in found]}, not "
                                       f"{DRIVER} alone: the adapter Dawn picks cannot be confirmed")
        return provider_session_works(self)

    def session_providers(self) -> list[tuple[str, dict[str, str]]] | None:
        return None  # the session options name the plugin's device

    def session_options(self, cpu_fallback: bool = False) -> Any:
        options = super().session_options(cpu_fallback)
        devices = _devices()
        if devices:  # none outside its worker: availability says so, and no session is opened
            options.add_provider_for_devices(devices, self.provider_options())
        return options

    def describe(self) -> dict[str, str]:
        (device,) = vulkan.physical_devices()
        return {"device": f"{self.provider} (Dawn on Vulkan: {device['name']})",
                "onnxruntime": ort_module().__version__, PLUGIN: metadata.version(PLUGIN),
                "adapter": f"{device['name']} (Vulkan {device['vulkan']})", "vulkan_device": device["name"],
                "vulkan_driver_version": device["driver_version"]}


def _devices() -> list[Any]:
    """The plugin's devices, its library registered in this process the first time."""
    if "devices" not in _registered:
        import onnxruntime_ep_webgpu

        ort = ort_module()
        ort.register_execution_provider_library("webgpu", onnxruntime_ep_webgpu.get_library_path())
        _registered["devices"] = [d for d in ort.get_ep_devices() if d.ep_name == OrtWebGpu.provider]
    return list(_registered["devices"])


RECORD = BackendRecord(
    name="ort-webgpu", runtime="ONNX Runtime (WebGPU execution provider, native plugin)",
    packages=("onnxruntime", PLUGIN),
    kernels="WGSL shaders through Dawn and Vulkan, on SwiftShader (the CPU)", kinds=("onnx",),
    operators=EVERY_OPERATOR, isolation="worker", extra="ort-webgpu", setup=vulkan.SETUP, family="shaders",
    adapter=OrtWebGpu,
    no_kernel=("nms",),  # the plugin declines NonMaxSuppression: ONNX Runtime hands it to its CPU provider
    # Answers of shaders depend on the device and driver that ran them (as ort-web-webgpu's).
    depends_on=("vulkan_device", "vulkan_driver_version"),
)
