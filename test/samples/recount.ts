/**
 * Recount a sample's Ethereum ground truth from what an oracle read back out of the store.
 */
import { classifyAccount, decodeAccount, isDelegationCode, summariseCodeSizes } from "../../src/eth/index.js";
import type { SampleTruth } from "../../src/samples/truth.js";

export function recountEthereum(
  accountValues: Buffer[],
  codeEntries: [Buffer, Buffer][],
): Pick<SampleTruth, "accounts"> & {
  code: Pick<
    SampleTruth["code"],
    "entries" | "distinctContractBytecodes" | "distinctDelegationCodes" | "distinctSizes" | "perContractSizes"
  >;
} {
  const codes = new Map(codeEntries.map(([k, v]) => [k.toString("hex"), v]));
  const accounts = { total: 0, eoa: 0, delegatedEoa: 0, contract: 0 };
  const perContract: number[] = [];
  for (const v of accountValues) {
    const a = decodeAccount(v);
    const code = codes.get(a.codeHash.toString("hex"));
    const kind = classifyAccount(a, code);
    accounts.total++;
    if (kind === "eoa") accounts.eoa++;
    else if (kind === "delegated-eoa") accounts.delegatedEoa++;
    else if (kind === "contract") {
      accounts.contract++;
      perContract.push(code!.length);
    } else throw new Error(`account whose code ${a.codeHash.toString("hex")} is missing`);
  }
  const contractCodes = [...codes.values()].filter((c) => !isDelegationCode(c));
  return {
    accounts,
    code: {
      entries: codes.size,
      distinctContractBytecodes: contractCodes.length,
      distinctDelegationCodes: codes.size - contractCodes.length,
      distinctSizes: summariseCodeSizes(contractCodes),
      perContractSizes: summariseCodeSizes(perContract),
    },
  };
}
