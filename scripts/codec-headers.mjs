#!/usr/bin/env node
// Whether the block codec helper (native/codec.c) can be built here: libsnappy's and liblz4's headers
// in the system include directory, where librocksdb-dev's are looked for (Debian's librocksdb-dev
// depends on libsnappy-dev and liblz4-dev). binding.gyp runs this (it prints 1 or 0) before it lists
// the helper's target, and scripts/build-addon.mjs asks it before it expects the helper: a machine
// with RocksDB's headers but not these still builds the engine addon, without the helper.
// LSMSCOPE_CODEC_HEADERS=0 simulates such a machine.
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

export function codecHeaders() {
  if (process.env.LSMSCOPE_CODEC_HEADERS === "0") return false;
  return existsSync("/usr/include/snappy-c.h") && existsSync("/usr/include/lz4.h");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.stdout.write(codecHeaders() ? "1" : "0");
