"""The two CPU Vulkan drivers the IREE-on-Vulkan backends run their SPIR-V shaders on: Mesa's
lavapipe (llvmpipe's Vulkan, Debian's `mesa-vulkan-drivers`) and Google's SwiftShader (the one
Debian's `chromium` package ships). A worker is given one driver by its ICD file
(`VK_ICD_FILENAMES`, set before the Vulkan loader starts), so the loader sees no other
device; availability then asks Vulkan itself which device it gives, and a worker that cannot
confirm the driver it was given is not used.

`topk-conformance setup vulkan` installs the loader and both drivers from Debian's packages."""

from __future__ import annotations

import ctypes
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from conformance.backends.base import Availability, WorkerLaunch
from conformance.backends.record import SetupStep
from conformance.backends.setup_steps import Say, SetupError, install_packages

ICD_VARIABLE = "VK_ICD_FILENAMES"
# Loaders from 1.3.207 read this name first; both are set so that either loader takes the one ICD.
DRIVER_FILES_VARIABLE = "VK_DRIVER_FILES"
LOADER = "libvulkan.so.1"


@dataclass(frozen=True)
class Driver:
    name: str  # as backend names say it: lavapipe, swiftshader
    icd: Path  # the ICD manifest the loader is pointed at
    package: str  # the Debian package that ships it
    device_word: str  # what the physical device's name must contain
    kind: str  # for the report
    # The description keys that say which build of the driver answers: lavapipe reports
    # driver version 0.0.1 whatever Mesa it is, so Mesa's package version says it;
    # SwiftShader reports its own (5.0.0), which Chromium's monthly releases rarely move.
    build: tuple[str, ...] = ("vulkan_device", "vulkan_driver_version")


DRIVERS = {
    "lavapipe": Driver("lavapipe", Path("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"), "mesa-vulkan-drivers",
                       "llvmpipe", "Mesa's lavapipe (LLVM-compiled shaders on the CPU)",
                       ("vulkan_device", "vulkan_package")),
    "swiftshader": Driver("swiftshader", Path("/usr/lib/chromium/vk_swiftshader_icd.json"), "chromium",
                          "SwiftShader", "Google's SwiftShader (Subzero-compiled shaders on the CPU)",
                          ("vulkan_device", "vulkan_driver_version")),
}
DEBIAN_PACKAGES = ("libvulkan1", *(driver.package for driver in DRIVERS.values()))


def launch(driver: str) -> WorkerLaunch:
    icd = str(DRIVERS[driver].icd)
    return WorkerLaunch(env={ICD_VARIABLE: icd, DRIVER_FILES_VARIABLE: icd})


def availability(driver: str) -> Availability:
    """Asked in the worker: the driver's ICD is installed and is the one this process was given."""
    wanted = DRIVERS[driver]
    if not wanted.icd.is_file():
        return Availability(False, f"no {driver} Vulkan driver ({wanted.icd} is missing; Debian's {wanted.package}: "
                                   "topk-conformance setup vulkan)")
    if os.environ.get(ICD_VARIABLE) != str(wanted.icd):
        return Availability(False, f"{ICD_VARIABLE} is not {wanted.icd} in this process: a Vulkan backend runs "
                                   "only in its own worker (not --in-process)")
    try:
        ctypes.CDLL(LOADER)
    except OSError:
        return Availability(False, f"no Vulkan loader ({LOADER}; Debian's libvulkan1: topk-conformance setup vulkan)")
    return Availability(True)


def confirms(driver: str, device_name: str) -> bool:
    """Whether a device name a runtime reports is the driver's."""
    return DRIVERS[driver].device_word.lower() in device_name.lower()


class _InstanceInfo(ctypes.Structure):  # VkInstanceCreateInfo
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p), ("flags", ctypes.c_uint32),
                ("pApplicationInfo", ctypes.c_void_p), ("enabledLayerCount", ctypes.c_uint32),
                ("ppEnabledLayerNames", ctypes.c_void_p), ("enabledExtensionCount", ctypes.c_uint32),
                ("ppEnabledExtensionNames", ctypes.c_void_p)]


class _DeviceProperties(ctypes.Structure):  # the head of VkPhysicalDeviceProperties
    _fields_ = [("apiVersion", ctypes.c_uint32), ("driverVersion", ctypes.c_uint32), ("vendorID", ctypes.c_uint32),
                ("deviceID", ctypes.c_uint32), ("deviceType", ctypes.c_uint32), ("deviceName", ctypes.c_char * 256)]


_PROPERTIES_ROOM = 4096  # more than the whole VkPhysicalDeviceProperties (about 824 bytes)


def physical_devices() -> list[dict[str, str]]:
    """What the Vulkan loader of this process reports of each physical device: its name, the
    driver version (as the driver encodes it: Mesa as Vulkan's major.minor.patch) and the
    Vulkan version. [] where there is no loader or no device; never raises."""
    try:
        vulkan = ctypes.CDLL(LOADER)
    except OSError:
        return []
    instance = ctypes.c_void_p()
    info = _InstanceInfo(sType=1)  # VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
    if vulkan.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(instance)) != 0:
        return []
    try:
        count = ctypes.c_uint32(0)
        vulkan.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), None)
        handles = (ctypes.c_void_p * count.value)()
        if count.value == 0 or vulkan.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), handles) != 0:
            return []
        devices = []
        for handle in handles:
            room = ctypes.create_string_buffer(_PROPERTIES_ROOM)
            vulkan.vkGetPhysicalDeviceProperties(ctypes.c_void_p(handle), room)
            head = _DeviceProperties.from_buffer(room)
            devices.append({"name": head.deviceName.decode(errors="replace"),
                            "driver_version": _version(head.driverVersion), "vulkan": _version(head.apiVersion)})
        return devices
    finally:
        vulkan.vkDestroyInstance(instance, None)


def _version(encoded: int) -> str:
    """Vulkan's packed version (VK_MAKE_API_VERSION), with the raw number beside it: a driver
    may encode its own version otherwise."""
    return f"{(encoded >> 22) & 0x7F}.{(encoded >> 12) & 0x3FF}.{encoded & 0xFFF} (0x{encoded:08x})"


def package_version(driver: str) -> str:
    """The installed version of the Debian package that ships the driver, or ""."""
    completed = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", DRIVERS[driver].package],
                               capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
    return completed.stdout.strip() if completed.returncode == 0 else ""


def _install(say: Say) -> None:
    install_packages(say, DEBIAN_PACKAGES, "the IREE-on-Vulkan backends")
    missing = [f"{name} ({driver.icd})" for name, driver in DRIVERS.items() if not driver.icd.is_file()]
    if missing:
        raise SetupError("the packages are installed but these Vulkan drivers are not where expected: "
                         + ", ".join(missing))


SETUP = SetupStep("vulkan", "the Vulkan loader and two CPU Vulkan drivers (Mesa's lavapipe, Chromium's SwiftShader), "
                  "from Debian's packages, for the IREE-on-Vulkan backends", _install)
