"""Conan 2 recipe for tensorlib, a header-only C++20 library (docs/using.md).

`conan create . -s compiler.cppstd=20` packages it and runs test_package/.
"""

import os
import re

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.files import copy, load

required_conan_version = ">=2.0"


class TensorlibConan(ConanFile):
    name = "tensorlib"
    description = "Header-only C++20 tensors with fused expression templates"
    topics = ("tensor", "expression-templates", "header-only", "cuda")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    # cuda=True gives consumers the tensorlib::cuda target (CUDA runtime, cuBLAS,
    # cuBLASLt, cuDNN when found), found on the consumer's machine; the package's
    # files are the same either way.
    options = {"cuda": [True, False]}
    default_options = {"cuda": False}
    exports_sources = "include/*", "cmake/tensorlibComponents.cmake", "packaging/conan/*"
    no_copy_source = True
    # Where the package keeps the CMake build modules that define components.
    _modules_dir = ("share", "conan", "tensorlib")

    def set_version(self):
        # core/config.hpp is the one source of truth for the version.
        header = load(self, os.path.join(self.recipe_folder, "include", "tensorlib", "core", "config.hpp"))
        parts = [re.search(rf"#define TENSORLIB_VERSION_{p} (\d+)", header).group(1)
                 for p in ("MAJOR", "MINOR", "PATCH")]
        self.version = ".".join(parts)

    def package_id(self):
        # Headers only: one package for every setting and option.
        self.info.clear()

    def validate(self):
        check_min_cppstd(self, 20)

    def package(self):
        copy(self, "*.hpp", os.path.join(self.source_folder, "include"), os.path.join(self.package_folder, "include"))
        modules = os.path.join(self.package_folder, *self._modules_dir)
        copy(self, "tensorlibComponents.cmake", os.path.join(self.source_folder, "cmake"), modules)
        copy(self, "*.cmake", os.path.join(self.source_folder, "packaging", "conan"), modules)

    def package_info(self):
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        self.cpp_info.set_property("cmake_file_name", "tensorlib")
        self.cpp_info.set_property("cmake_target_name", "tensorlib::tensorlib")
        self.cpp_info.set_property("pkg_config_name", "tensorlib")
        if self.settings.os in ("Linux", "FreeBSD"):
            self.cpp_info.system_libs = ["pthread"]
        # Components link what is found on the consumer's machine, so CMakeDeps
        # cannot describe them: build modules define them with the same code as
        # tensorlib's own package config (find_package COMPONENTS work too).
        modules = ["tensorlib-conan.cmake"]
        if self.options.cuda:
            modules.insert(0, "tensorlib-conan-cuda.cmake")  # must come first: it sets a variable for the other
        self.cpp_info.set_property("cmake_build_modules", [os.path.join(*self._modules_dir, m) for m in modules])
