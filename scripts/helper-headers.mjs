#!/usr/bin/env node
// Whether a helper of the engine addon can be built here: its system libraries' headers in the system
// include directory, where librocksdb-dev's are looked for.
//   codec     the block codec (native/codec.c): libsnappy's and liblz4's (Debian's librocksdb-dev
//             depends on libsnappy-dev and liblz4-dev)
//   checksum  the checksum helper (native/checksum.c): ISA-L's and xxHash's (libisal-dev,
//             libxxhash-dev; on x86 xxHash's dispatcher header too)
// binding.gyp runs this with the helper's name (it prints 1 or 0) before it lists the helper's
// target, and scripts/build-addon.mjs asks it before it expects the helper: a machine with RocksDB's
// headers but not these still builds the engine addon, without the helper.
// LSMSCOPE_CODEC_HEADERS=0 and LSMSCOPE_CHECKSUM_HEADERS=0 simulate such a machine.
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

const HEADERS = {
  codec: () => ["/usr/include/snappy-c.h", "/usr/include/lz4.h"],
  checksum: () => [
    "/usr/include/isa-l/crc.h",
    "/usr/include/xxhash.h",
    ...(process.arch === "x64" || process.arch === "ia32" ? ["/usr/include/xxh_x86dispatch.h"] : []),
  ],
};

/** Whether helper `name` ("codec", "checksum") can be built here. */
export function helperHeaders(name) {
  if (process.env[`LSMSCOPE_${name.toUpperCase()}_HEADERS`] === "0") return false;
  const headers = HEADERS[name];
  if (!headers) throw new Error(`no such helper: ${name}`);
  return headers().every((h) => existsSync(h));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.stdout.write(helperHeaders(process.argv[2] ?? "") ? "1" : "0");
