#!/bin/sh
# Copies the sample project to $1 and writes its nvcc compilation database
# (CMake style, absolute paths) under $1/build.
set -e
src="$(dirname "$0")/../project"
rm -rf "$1"
mkdir -p "$1"
cp -r "$src/src" "$src/include" "$1/"
mkdir -p "$1/build"
sed "s|@ROOT@|$1|g" "$src/compile_commands.json.in" > "$1/build/compile_commands.json"
echo "-I$1/include" > "$1/build/includes_CUDA.rsp"
