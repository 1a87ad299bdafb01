/**
 * The IBFT group (`ibft_*`) on an IBFT 2.0 chain and the QBFT group (`qbft_*`) on a QBFT chain: the
 * same six methods over the BFT service — validators of a block, this node's validator votes, signer
 * metrics — plus `qbft_getRequestTimeoutSeconds`. On a chain of another consensus they do not exist.
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { Bft } from '../../../consensus/bft/service.js';
import { hashMapOrder, javaStringHash } from '../../../util/javaOrder.js';
import {
  INVALID_ADDRESS_PARAMS,
  INVALID_BLOCK_HASH_PARAMS,
  INVALID_BLOCK_NUMBER_PARAMS,
  INVALID_BLOCK_PARAMS,
  INVALID_VOTE_TYPE_PARAMS,
  METHOD_NOT_ENABLED,
  METHOD_NOT_FOUND,
  RpcError,
  UNKNOWN_BLOCK,
} from '../../errors.js';
import { address, blockNumberParam, bool, hashBytes } from '../../params.js';
import type { Services } from '../../services.js';
import { signerMetrics } from '../clique/signerMetrics.js';
import { defineMethod, optional, required } from '../define.js';
import type { ApiGroup, RpcMethod } from '../types.js';

type Variant = Bft['variant'];

function requireBft(services: Services, variant: Variant): Bft {
  const bft = services.bft;
  if (!bft || bft.variant !== variant) throw new RpcError(METHOD_NOT_FOUND);
  return bft;
}

/** Votes exist only while the head is in block-header validator selection (QBFT contracts vote on-chain). */
function requireVotes(services: Services, variant: Variant): Bft {
  const bft = requireBft(services, variant);
  if (!bft.hasVoteProviderAt(services.chain.headHeader())) throw new RpcError(METHOD_NOT_ENABLED);
  return bft;
}

async function validatorsOf(bft: Bft, header: BlockHeader | undefined): Promise<string[] | null> {
  return header ? [...(await bft.validatorsOf(header))] : null;
}

function methodsFor(prefix: 'ibft' | 'qbft', group: ApiGroup, variant: Variant): RpcMethod[] {
  const needs = ({ services }: { services: Services }) => requireBft(services, variant);
  const methods: RpcMethod[] = [
    defineMethod({
      name: `${prefix}_getValidatorsByBlockNumber`,
      group,
      params: [required(blockNumberParam, INVALID_BLOCK_PARAMS)],
      requires: needs,
      handler([block], { services }) {
        const bft = requireBft(services, variant);
        const chain = services.chain;
        let header: BlockHeader | undefined;
        if (block.kind === 'number') header = chain.getHeaderByNumber(block.number);
        else if (block.tag === 'earliest') header = chain.getHeaderByNumber(0n);
        else if (block.tag === 'safe' || block.tag === 'finalized') {
          const hash = block.tag === 'safe' ? chain.safeHash() : chain.finalizedHash();
          header = hash ? chain.getHeader(hash) : undefined;
          if (!header) throw new RpcError(UNKNOWN_BLOCK);
        } else header = chain.headHeader();
        return validatorsOf(bft, header);
      },
    }),
    defineMethod({
      name: `${prefix}_getValidatorsByBlockHash`,
      group,
      params: [required(hashBytes, INVALID_BLOCK_HASH_PARAMS)],
      requires: needs,
      handler([hash], { services }) {
        return validatorsOf(requireBft(services, variant), services.chain.getHeader(hash));
      },
    }),
    defineMethod({
      name: `${prefix}_proposeValidatorVote`,
      group,
      params: [required(address, INVALID_ADDRESS_PARAMS), required(bool, INVALID_VOTE_TYPE_PARAMS)],
      requires: ({ services }) => requireVotes(services, variant),
      handler([candidate, add], { services }) {
        requireVotes(services, variant).proposals.propose(candidate, add);
        return true;
      },
    }),
    defineMethod({
      name: `${prefix}_discardValidatorVote`,
      group,
      params: [required(address, INVALID_ADDRESS_PARAMS)],
      requires: ({ services }) => requireVotes(services, variant),
      handler([candidate], { services }) {
        requireVotes(services, variant).proposals.discard(candidate);
        return true;
      },
    }),
    defineMethod({
      name: `${prefix}_getPendingVotes`,
      group,
      params: [],
      requires: ({ services }) => requireVotes(services, variant),
      handler(_args, { services }) {
        const proposals = requireVotes(services, variant).proposals.all();
        const out: Record<string, boolean> = {};
        for (const candidate of hashMapOrder([...proposals.keys()], javaStringHash)) {
          out[candidate] = proposals.get(candidate) as boolean;
        }
        return out;
      },
    }),
    defineMethod({
      name: `${prefix}_getSignerMetrics`,
      group,
      params: [
        optional(blockNumberParam, INVALID_BLOCK_NUMBER_PARAMS),
        optional(blockNumberParam, INVALID_BLOCK_NUMBER_PARAMS),
      ],
      requires: needs,
      handler([fromParam, toParam], { services }) {
        const bft = requireBft(services, variant);
        return signerMetrics(
          services,
          fromParam,
          toParam,
          (header) => bft.proposerOf(header),
          (header) => bft.validatorsAfter(header),
        );
      },
    }),
  ];
  if (variant === 'qbft') {
    methods.push(
      defineMethod({
        name: 'qbft_getRequestTimeoutSeconds',
        group,
        params: [],
        requires: needs,
        handler(_args, { services }) {
          return requireBft(services, variant).requestTimeoutSeconds;
        },
      }),
    );
  }
  return methods;
}

export const ibftMethods: RpcMethod[] = methodsFor('ibft', 'IBFT', 'ibft2');
export const qbftMethods: RpcMethod[] = methodsFor('qbft', 'QBFT', 'qbft');
