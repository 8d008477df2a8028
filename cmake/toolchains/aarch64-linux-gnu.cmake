# SPDX-License-Identifier: MIT
# kyu for Linux ARM64 from x86-64 with Debian's cross compiler (apt-get install -y
# gcc-aarch64-linux-gnu); ctest runs the programs under qemu-user (apt-get install -y qemu-user):
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# The programs are linked statically, so qemu needs no ARM64 loader or libraries.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
find_program(CMAKE_C_COMPILER NAMES aarch64-linux-gnu-gcc REQUIRED)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
find_program(KYU_QEMU NAMES qemu-aarch64 qemu-aarch64-static)
if(KYU_QEMU)
    set(CMAKE_CROSSCOMPILING_EMULATOR "${KYU_QEMU}")
endif()
