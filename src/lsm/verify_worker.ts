/**
 * Worker thread of `inspect --verify`: claims items from the shared counter until none are left and
 * posts one result per item (verify.ts).
 */
import { parentPort, workerData } from "node:worker_threads";
import { verifyItem, type VerifyItem } from "./verify_item.js";

const { items, claim } = workerData as { items: VerifyItem[]; claim: Int32Array };
for (;;) {
  const i = Atomics.add(claim, 0, 1);
  if (i >= items.length) break;
  parentPort!.postMessage({ index: i, result: verifyItem(items[i]!) });
}
parentPort!.postMessage({ done: true });
