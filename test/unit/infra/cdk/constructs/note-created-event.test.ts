/**
 * The NoteCreated pipe's filter and input template, taken from the synthesized template, applied to
 * stream records of the items the conversations store really writes: the event detail is exactly
 * {tenantId, conversationId, noteId, createdAt}, and only note inserts get through.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, it } from 'vitest';
import { Data } from '#infra/cdk/constructs/data';
import { NoteEvents } from '#infra/cdk/constructs/note-events';
import { stageConfig } from '#infra/cdk/stage/config';
import { matchesEventPattern } from '#infra/local/emulators/match-event-pattern';
import { buildNote } from '#shared/domain/notes/build-note';
import { conversationWithDefaults } from '#shared/domain/notes/conversation';
import { WITHOUT_BUILTIN_VALIDATION } from '#test/support/cdk-json-context';
import {
  conversationStreamRecord,
  storedConversationItem,
  storedNoteItem,
} from '#test/support/conversation-stream-records';
import { renderPipeTemplate } from '#test/support/render-pipe-template';

interface PipeProperties {
  SourceParameters: { FilterCriteria: { Filters: Array<{ Pattern: string }> } };
  TargetParameters: { InputTemplate: string };
}

let filters: Array<Record<string, unknown>>;
let inputTemplate: string;

beforeAll(() => {
  const config = stageConfig('dev');
  const stack = new Stack(new App(WITHOUT_BUILTIN_VALIDATION), 'note-events');
  const data = new Data(stack, 'Data', config);
  new NoteEvents(stack, 'NoteEvents', { config, conversations: data.tables.conversations });
  const [pipe, ...others] = Object.values(Template.fromStack(stack).findResources('AWS::Pipes::Pipe'));
  expect(others).toHaveLength(0);
  const properties = pipe!.Properties as PipeProperties;
  filters = properties.SourceParameters.FilterCriteria.Filters.map(
    (filter) => JSON.parse(filter.Pattern) as Record<string, unknown>,
  );
  inputTemplate = properties.TargetParameters.InputTemplate;
});

/** Pipes passes a record on when any of its filters matches it. */
const passes = (record: unknown) => filters.some((pattern) => matchesEventPattern(pattern, record));

async function noteItem(tenantId: string, conversationId: string) {
  const now = new Date('2026-03-01T10:15:30.123Z');
  const note = {
    ...buildNote(ulid(now.getTime()), now),
    body: 'Called the customer back; "refund" promised.\nSee ticket.',
  };
  return { note, item: await storedNoteItem(tenantId, conversationId, note) };
}

describe('the NoteCreated transform', () => {
  it('turns the stream record of a stored note into exactly {tenantId, conversationId, noteId, createdAt}', async () => {
    const { note, item } = await noteItem('acme.eu-1', 'conv-42');
    const record = conversationStreamRecord(item, 'INSERT');
    expect(passes(record)).toBe(true);
    const detail: unknown = JSON.parse(renderPipeTemplate(inputTemplate, record));
    expect(detail).toStrictEqual({
      tenantId: 'acme.eu-1',
      conversationId: 'conv-42',
      noteId: note.id,
      createdAt: note.createdAt,
    });
  });

  it('carries a conversation id with quotes and non-ASCII intact (Pipes escapes quoted placeholders)', async () => {
    const conversationId = 'support "VIP" – Zoë #7';
    const { note, item } = await noteItem('acme', conversationId);
    const detail = JSON.parse(renderPipeTemplate(inputTemplate, conversationStreamRecord(item, 'INSERT'))) as Record<
      string,
      string
    >;
    expect(detail).toStrictEqual({ tenantId: 'acme', conversationId, noteId: note.id, createdAt: note.createdAt });
  });

  it('never copies the note body or author into the event', async () => {
    const { item } = await noteItem('acme', 'conv-1');
    expect(renderPipeTemplate(inputTemplate, conversationStreamRecord(item, 'INSERT'))).not.toMatch(
      /refund|API|system/,
    );
  });
});

describe('the NoteCreated filter', () => {
  it('lets no conversation item through, inserted or changed', async () => {
    const item = await storedConversationItem('acme', conversationWithDefaults({ id: 'conv-1' }));
    for (const eventName of ['INSERT', 'MODIFY', 'REMOVE'] as const)
      expect(passes(conversationStreamRecord(item, eventName))).toBe(false);
  });

  it('lets a note through only when it is inserted, not modified or removed', async () => {
    const { item } = await noteItem('acme', 'conv-1');
    expect(passes(conversationStreamRecord(item, 'INSERT'))).toBe(true);
    expect(passes(conversationStreamRecord(item, 'MODIFY'))).toBe(false);
    expect(passes(conversationStreamRecord(item, 'REMOVE'))).toBe(false);
  });
});

describe('the test renderer itself', () => {
  const record = { a: { list: [{ n: 1 }, { n: 2 }], text: 'x"y' } };

  it('inserts JSON outside quotes and escaped text inside them', () => {
    expect(renderPipeTemplate('{"n":<$.a.list[1].n>,"o":<$.a.list[0]>,"t":"<$.a.text>!"}', record)).toBe(
      '{"n":2,"o":{"n":1},"t":"x\\"y!"}',
    );
  });

  it('refuses what it cannot render faithfully', () => {
    expect(() => renderPipeTemplate('"<$.a.missing>"', record)).toThrow(/finds nothing/);
    expect(() => renderPipeTemplate('"<aws.pipes.pipe-name>"', record)).toThrow(/unsupported/);
    expect(() => matchesEventPattern({ a: [{ 'anything-but': 'x' }] }, { a: 'y' })).toThrow(/unsupported/);
  });
});
