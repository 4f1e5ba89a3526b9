/**
 * Where our functions stand against the peers, from the cold-start rows of one run. A function is
 * ahead of a peer when its cold-request ratio (import plus first request, what a caller waits
 * for), as printed, is lower; rows measured without a first request compare their import ratios.
 * Comparing the printed (rounded) figures keeps the verdict and the table in agreement, and a tie
 * is not ahead.
 */
import type { ColdStartEntry, ColdStartReport } from './measure-cold-start.ts';

/** Our functions that answer requests through API Gateway; the stream indexer and the probe do not. */
export const COMPARED_KINDS: ReadonlySet<ColdStartEntry['kind']> = new Set([
  'api',
  'reporting-opensearch',
  'mcp',
  'authorizer',
]);

/** What the comparison is on: the cold request where it was measured, else the import. */
export const figure = (entry: ColdStartEntry): number => entry.coldRequestRatio ?? entry.ratio;

/** The rows, with `aheadOfPeers` set on each compared function when any peer was measured. */
export function withPeerStandings(entries: readonly ColdStartEntry[]): ColdStartEntry[] {
  const peers = entries.filter((entry) => entry.kind === 'peer');
  if (peers.length === 0) return [...entries];
  return entries.map((entry) =>
    COMPARED_KINDS.has(entry.kind)
      ? {
          ...entry,
          aheadOfPeers: Object.fromEntries(peers.map((peer) => [peer.function, figure(entry) < figure(peer)])),
        }
      : entry,
  );
}

export interface PeerStanding {
  peer: string;
  ratio: number;
  /** Our compared functions, ahead of this peer or not. */
  ahead: string[];
  notAhead: string[];
}

/** Per peer, which of our functions are ahead of it (read from the rows' `aheadOfPeers`). */
export function peerStandings(report: ColdStartReport): PeerStanding[] {
  const ours = report.functions.filter((entry) => entry.aheadOfPeers !== undefined);
  return report.functions
    .filter((entry) => entry.kind === 'peer')
    .map((peer) => ({
      peer: peer.function,
      ratio: figure(peer),
      ahead: ours.filter((entry) => entry.aheadOfPeers![peer.function] === true).map((entry) => entry.function),
      notAhead: ours.filter((entry) => entry.aheadOfPeers![peer.function] !== true).map((entry) => entry.function),
    }));
}
