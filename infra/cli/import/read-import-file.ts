/**
 * Reads an import file as a stream of entries (import-entries.ts), one array element at a time, so
 * a file of any size is never held in memory: stream-json's tokenizer runs over the file as it is
 * read, the entries' structure (root, members, collections) is followed here, and each element is
 * assembled on its own by stream-json's Assembler. Elements of a member that is not an array, and
 * members after the root ends, are skipped: the checker refuses the file at the member already.
 */
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import { Assembler } from 'stream-json/assembler.js';
import { jsonParser, type Token } from 'stream-json/parser.js';
import { jsonVerifier, type VerifierError } from 'stream-json/utils/verifier.js';
import type { ImportEntry, ImportSection, JsonShape } from '#infra/tenant-data/import-entries';
import { ImportError } from '#infra/tenant-data/import-error';

const VALUE_SHAPES: Partial<Record<Token['name'], JsonShape>> = {
  startObject: 'object',
  startArray: 'array',
  stringValue: 'string',
  numberValue: 'number',
  trueValue: 'boolean',
  falseValue: 'boolean',
  nullValue: 'null',
};

/** Follows the tokens of the file's first levels and collects its entries. */
class EntryCollector {
  private level: 'start' | 'root' | 'documents' | 'items' | 'done' = 'start';
  private key = '';
  private section: ImportSection = { member: '' };
  private index = 0;
  private itemsIn: 'root' | 'documents' = 'root';
  /** Depth of a value being skipped; 0 when none is. */
  private skipping = 0;
  /** Assembles one element at a time; idle (done) between elements. */
  private readonly element = new Assembler();
  private entries: ImportEntry[] = [];

  /** The entries collected since the last call. */
  take(): ImportEntry[] {
    const taken = this.entries;
    this.entries = [];
    return taken;
  }

  get started(): boolean {
    return this.level !== 'start';
  }

  push(token: Token): void {
    if (this.skipping > 0) {
      if (token.name === 'startObject' || token.name === 'startArray') this.skipping++;
      else if (token.name === 'endObject' || token.name === 'endArray') this.skipping--;
      return;
    }
    if (!this.element.done) {
      this.assemble(token);
      return;
    }
    const shape = VALUE_SHAPES[token.name];
    switch (this.level) {
      case 'start':
        if (!shape) return;
        this.entries.push({ type: 'root', shape });
        this.level = shape === 'object' ? 'root' : 'done';
        if (shape === 'array') this.skipping = 1;
        return;
      case 'root':
      case 'documents':
        if (token.name === 'keyValue') {
          this.key = token.value;
        } else if (token.name === 'endObject') {
          this.level = this.level === 'documents' ? 'root' : 'done';
        } else if (shape) {
          this.entries.push(
            this.level === 'root'
              ? { type: 'member', member: this.key, shape }
              : { type: 'collection', collection: this.key, shape },
          );
          this.open(shape);
        }
        return;
      case 'items':
        if (token.name === 'endArray') this.level = this.itemsIn;
        else if (shape) this.assemble(token);
        return;
      case 'done':
        return;
    }
  }

  /** After a member's or a collection's name and shape: step into it, or skip it. */
  private open(shape: JsonShape): void {
    if (this.level === 'root' && this.key === 'documents' && shape === 'object') {
      this.level = 'documents';
    } else if (shape === 'array') {
      this.section = this.level === 'documents' ? { member: 'documents', collection: this.key } : { member: this.key };
      this.itemsIn = this.level === 'documents' ? 'documents' : 'root';
      this.index = 0;
      this.level = 'items';
    } else if (shape === 'object') {
      this.skipping = 1;
    }
  }

  private assemble(token: Token): void {
    const value = this.element.tapChain(token);
    if (value === none) return;
    this.entries.push({ type: 'item', section: this.section, index: this.index++, value });
  }
}

/** The parser's or verifier's reason, without their prefixes ("ERROR at 3 (1, 4): Verifier has ..."). */
const reason = (message: string) =>
  message.replace(/^ERROR at \d+ \(\d+, \d+\): /, '').replace(/^(Parser|Verifier) (cannot parse input: |has )/, '');

/** Where the file stops being JSON, found by stream-json's verifier (only once the parser failed). */
async function syntaxError(path: string, cause: unknown): Promise<ImportError> {
  const verify = jsonVerifier();
  const end = verify as unknown as (end: typeof none) => unknown;
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(path)) {
      const text = decoder.write(chunk as Buffer);
      const atStart = bytes === 0;
      bytes += (chunk as Buffer).length;
      verify(atStart ? text.replace(/^\uFEFF/, '') : text);
    }
    verify(decoder.end());
    end(none);
  } catch (error) {
    const { line, pos, offset, message } = error as VerifierError;
    if (typeof line === 'number') {
      const where = offset >= bytes ? 'the file ends early' : `line ${line}, column ${pos}`;
      return new ImportError(`${path} is not valid JSON: ${where}: ${reason(message)}`);
    }
  }
  return new ImportError(`${path} is not valid JSON: ${reason((cause as Error).message)}`);
}

/**
 * The entries of the file at `path`, in file order. `onBytes` sees every chunk read (to hash the
 * file as it goes by). A file that is not JSON is an ImportError naming the line and column.
 */
export async function* readImportFile(path: string, onBytes?: (chunk: Buffer) => void): AsyncGenerator<ImportEntry> {
  const tokenize = jsonParser({ streamValues: false });
  // A flushable stage takes `none` once, at the end of its input (stream-chain's protocol).
  const flush = tokenize as unknown as (end: typeof none) => ReturnType<typeof tokenize>;
  const collector = new EntryCollector();
  const decoder = new StringDecoder('utf8');
  let first = true;
  /** Tokenizes text (none: the end of the file); the parser's error when the text is not JSON. */
  const feed = (text: string | typeof none): unknown => {
    let result: ReturnType<typeof tokenize>;
    try {
      result = typeof text === 'string' ? tokenize(text) : flush(text);
    } catch (error) {
      return error;
    }
    if (isMany(result)) for (const token of getManyValues(result)) collector.push(token);
    else if (result !== none) collector.push(result as Token);
    return undefined;
  };
  for await (const chunk of createReadStream(path)) {
    onBytes?.(chunk as Buffer);
    let text = decoder.write(chunk as Buffer);
    // JSON.parse refuses a byte-order mark; an editor may write one, and it changes no value.
    if (first && text.length > 0) {
      text = text.replace(/^\uFEFF/, '');
      first = false;
    }
    const failure = feed(text);
    if (failure) throw await syntaxError(path, failure);
    yield* collector.take();
  }
  const failure = feed(decoder.end()) ?? feed(none);
  if (failure) throw await syntaxError(path, failure);
  if (!collector.started) throw new ImportError(`${path} is not valid JSON: it holds no value`);
  yield* collector.take();
}
