/** The built-in panes, registered once on import. */
import { registerPane } from "./registry.js";
import { layoutPane } from "./layout.js";
import { filesPane } from "./files.js";
import { optionsPane } from "./options.js";
import { walPane } from "./wal.js";
import { blobPane } from "./blob.js";

for (const p of [layoutPane, filesPane, optionsPane, walPane, blobPane]) registerPane(p);
