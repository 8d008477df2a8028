# SPDX-License-Identifier: MIT
# kyu for Windows x86-64 from Linux with Debian's mingw-w64 (apt-get install -y mingw-w64); ctest
# runs the programs under Wine (apt-get install -y wine wine64):
#   cmake -S . -B build-mingw -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64.cmake [-DKYU_USE_PTHREADS=ON]
# The programs are linked statically (the C runtime's helpers and winpthreads inside), so Wine
# needs no DLL from the toolchain; kyu.dll is built beside them.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
# The win32 flavour of Debian's compiler: its C runtime does not itself need winpthreads.
find_program(CMAKE_C_COMPILER NAMES x86_64-w64-mingw32-gcc-win32 x86_64-w64-mingw32-gcc REQUIRED)
find_program(CMAKE_RC_COMPILER NAMES x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")
find_program(KYU_WINE NAMES wine64 wine)
if(KYU_WINE)
    set(CMAKE_CROSSCOMPILING_EMULATOR "${KYU_WINE}")
endif()
