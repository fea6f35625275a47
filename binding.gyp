{
  "variables": {
    "lsmscope_codec%": "<!(node scripts/helper-headers.mjs codec)",
    "lsmscope_checksum%": "<!(node scripts/helper-headers.mjs checksum)"
  },
  "targets": [
    {
      "target_name": "lsmscope_engine",
      "sources": ["native/engine.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wno-unused-parameter"],
      "libraries": ["-lrocksdb"]
    },
    {
      "target_name": "lsmscope_readahead",
      "sources": ["native/readahead.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-Wall", "-Wextra", "-Wno-unused-parameter"]
    },
    {
      "target_name": "lsmscope_map_file",
      "sources": ["native/map_file.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ],
  "conditions": [
    [
      "lsmscope_codec==1",
      {
        "targets": [
          {
            "target_name": "lsmscope_codec",
            "sources": ["native/codec.c"],
            "defines": ["NAPI_VERSION=8"],
            "cflags": ["-Wall", "-Wextra", "-Wno-unused-parameter"],
            "libraries": ["-lsnappy", "-llz4"]
          }
        ]
      }
    ],
    [
      "lsmscope_checksum==1",
      {
        "targets": [
          {
            "target_name": "lsmscope_checksum",
            "sources": ["native/checksum.c"],
            "defines": ["NAPI_VERSION=8"],
            "cflags": ["-Wall", "-Wextra", "-Wno-unused-parameter"],
            "libraries": ["-lisal", "-lxxhash"]
          }
        ]
      }
    ]
  ]
}
