/**
 * The page rule both reporting adapters share: at most `limit` rows, and rows stop before
 * the page passes `maxBytes` measured as the rows travel in a Lambda response (escaped inside its
 * JSON envelope). The first row always fits, so paging always advances.
 */
export class ReportPageBudget {
  readonly rows: string[] = [];
  last: [number, string] | undefined;
  private bytes = 0;

  constructor(
    private readonly limit: number,
    private readonly maxBytes: number,
  ) {}

  /** Takes the row, or answers false: the page is full and more rows remain. */
  offer(row: string, key: [number, string]): boolean {
    const size = Buffer.byteLength(JSON.stringify(row)) + 1;
    if (this.rows.length === this.limit || (this.rows.length > 0 && this.bytes + size > this.maxBytes)) return false;
    this.rows.push(row);
    this.bytes += size;
    this.last = key;
    return true;
  }

  /** Rows still wanted (one more than the limit, to learn whether more remain). */
  get wanted(): number {
    return this.limit + 1 - this.rows.length;
  }
}
