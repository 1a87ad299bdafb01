/**
 * EIP-7685 execution requests of a block the builder fills (Prague on chains that produce their own
 * blocks, such as QBFT): deposits from the deposit contract's logs (EIP-6110), then the outputs of the
 * withdrawal (EIP-7002) and consolidation (EIP-7251) request contracts, called by the system address
 * at the end of the block when they exist — the same requests block import computes, hashed into the
 * header's `requestsHash`.
 */
import { genRequestsRoot } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import {
  type Address,
  bigIntToAddressBytes,
  bytesToHex,
  CLRequest,
  CLRequestType,
  concatBytes,
  createAddressFromString,
} from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { sha256 } from '../crypto/index.js';

const DEPOSIT_TOPIC = '0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5';
const MAINNET_DEPOSIT_CONTRACT = '0x00000000219ab540356cbb839cbe05303d7705fa';
/** The deposit event's data: five offsets, then five length-prefixed fields padded to 32 bytes. */
const DEPOSIT_LOG_SIZE = 576;
const DEPOSIT_FIELDS: ReadonlyArray<[offset: number, size: number]> = [
  [160, 48], // pubkey
  [256, 32], // withdrawal credentials
  [320, 8], // amount
  [384, 96], // signature
  [512, 8], // index
];

/** A log as a receipt holds it: [address, topics, data]. */
export type ReceiptLog = [Uint8Array, Uint8Array[], Uint8Array];

function depositRequest(depositContract: string, logs: readonly ReceiptLog[]): CLRequest<CLRequestType> {
  let data = new Uint8Array();
  for (const [address, topics, body] of logs) {
    if (bytesToHex(address) !== depositContract || topics.length === 0) continue;
    if (bytesToHex(topics[0] as Uint8Array) !== DEPOSIT_TOPIC) continue;
    if (body.length !== DEPOSIT_LOG_SIZE) throw new Error('deposit log has an invalid layout');
    const parts: Uint8Array[] = [];
    DEPOSIT_FIELDS.forEach(([offset, size], i) => {
      const declaredOffset = BigInt(bytesToHex(body.subarray(i * 32, i * 32 + 32)));
      const declaredSize = BigInt(bytesToHex(body.subarray(offset, offset + 32)));
      if (declaredOffset !== BigInt(offset) || declaredSize !== BigInt(size))
        throw new Error('deposit log has an invalid layout');
      parts.push(body.subarray(offset + 32, offset + 32 + size));
    });
    data = concatBytes(data, ...parts);
  }
  return new CLRequest(CLRequestType.Deposit, data);
}

async function systemCallRequest(
  vm: VM,
  type: CLRequestType,
  contractParam: string,
): Promise<CLRequest<CLRequestType>> {
  const contract = createAddressFromString(bytesToHex(bigIntToAddressBytes(vm.common.param(contractParam))));
  if ((await vm.stateManager.getAccount(contract)) === undefined)
    return new CLRequest(type, new Uint8Array());
  const system: Address = createAddressFromString(
    bytesToHex(bigIntToAddressBytes(vm.common.param('systemAddress'))),
  );
  const before = await vm.stateManager.getAccount(system);
  const result = await vm.evm.runCall({
    caller: system,
    gasLimit: vm.common.param('systemCallGasLimit'),
    to: contract,
  });
  if (before === undefined) await vm.stateManager.deleteAccount(system);
  else await vm.stateManager.putAccount(system, before);
  return new CLRequest(type, result.execResult.returnValue);
}

/** The block's requests hash, after its transactions ran on `vm` and emitted `logs`. */
export async function accumulateRequestsHash(
  vm: VM,
  common: Common,
  depositContract: string | undefined,
  logs: readonly ReceiptLog[],
): Promise<Uint8Array> {
  const requests: CLRequest<CLRequestType>[] = [];
  if (common.isActivatedEIP(6110))
    requests.push(depositRequest((depositContract ?? MAINNET_DEPOSIT_CONTRACT).toLowerCase(), logs));
  if (common.isActivatedEIP(7002))
    requests.push(await systemCallRequest(vm, CLRequestType.Withdrawal, 'withdrawalRequestPredeployAddress'));
  if (common.isActivatedEIP(7251))
    requests.push(
      await systemCallRequest(vm, CLRequestType.Consolidation, 'consolidationRequestPredeployAddress'),
    );
  return genRequestsRoot(requests, sha256);
}
