/**
 * Realistic reporting rows for demos and load: bots, agents, categories, CSat, sentiment,
 * problems and KPIs, spread over the last `days` days. Seeded, so a seed gives the same rows.
 */
import type { ReportRow } from '#shared/domain/reporting/report-rows';

/** mulberry32: a small seeded PRNG; Math.random cannot be seeded. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BOTS = [
  ['bot-billing', 'Billing helper'],
  ['bot-returns', 'Returns assistant'],
  ['bot-onboarding', 'Onboarding guide'],
] as const;
const AGENTS = [
  ['agent-1', 'Ada Agent'],
  ['agent-2', 'Bob Backup'],
  ['agent-3', 'Chen Li'],
  ['agent-4', 'Dara Okafor'],
] as const;
const CUSTOMERS = ['Maria Garcia', 'John Smith', 'Aiko Tanaka', 'Lars Nilsson', 'Fatima Zahra', 'Priya Patel'] as const;
const CATEGORIES = [
  ['Billing', 'Invoice', 'Duplicate charge'],
  ['Billing', 'Refund', 'Late refund'],
  ['Orders', 'Returns', 'Damaged item'],
  ['Orders', 'Delivery', 'Late delivery'],
  ['Account', 'Access', 'Password reset'],
] as const;
const PROBLEMS = ['Long hold time', 'Repeated contact', 'Unclear policy', 'Transfer between teams'] as const;

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)]!;
}

/** ISO 8601 of `ms` at a fixed offset of `offsetMinutes` (the tenant's zone). */
function isoWithOffset(ms: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export interface GenerateOptions {
  count: number;
  days: number;
  now: number;
  seed?: number;
  /** The tenant's UTC offset for VOC Datetime, minutes. */
  offsetMinutes?: number;
}

export function generateAssistantRows({ count, days, now, seed = 1 }: GenerateOptions): ReportRow[] {
  const rnd = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const [botId, botName] = pick(rnd, BOTS);
    const [category, subcategory, tertiary] = pick(rnd, CATEGORIES);
    const start = Math.floor(now - rnd() * days * 86_400_000);
    const duration = 30 + Math.floor(rnd() * 900);
    const escalated = rnd() < 0.3;
    const [agentId, agentName] = pick(rnd, AGENTS);
    const customer = pick(rnd, CUSTOMERS);
    return {
      ID: `asst-${String(i + 1).padStart(6, '0')}`,
      BotID: botId,
      BotName: botName,
      Datetime: start,
      EndDatetime: start + duration * 1000,
      Duration: duration,
      Escalated: escalated,
      escalatedAt: escalated ? start + Math.floor(duration * 500) : null,
      CSat: rnd() < 0.7 ? 1 + Math.floor(rnd() * 5) : null,
      AgentName: escalated ? agentName : null,
      AgentId: escalated ? agentId : null,
      AgentEmail: escalated ? `${agentId}@example.com` : null,
      Category: category,
      Subcategory: subcategory,
      Tertiary: tertiary,
      RemoteIp: `203.0.113.${1 + Math.floor(rnd() * 250)}`,
      userAgent: pick(rnd, ['Mozilla/5.0 (Macintosh)', 'Mozilla/5.0 (iPhone)', 'Mozilla/5.0 (Windows NT 10.0)']),
      Referrer: pick(rnd, ['https://shop.example.com/help', 'https://shop.example.com/orders', null]),
      Media: pick(rnd, ['chat', 'messenger', 'whatsapp']),
      Summary: `${customer} asked about ${subcategory.toLowerCase()} (${tertiary.toLowerCase()}).`,
      'Handoff Reason': escalated
        ? pick(rnd, ['Customer asked for a human', 'Low confidence', 'Policy exception'])
        : null,
      ticketId: escalated ? `T-${100000 + i}` : null,
      ticketUrl: escalated ? `https://support.example.com/tickets/T-${100000 + i}` : null,
      ticketKind: escalated ? 'support' : null,
      Input: pick(rnd, ['widget', 'api', 'email']),
      'Contact Name': customer,
      'Contact Email': `${customer.toLowerCase().replace(/[^a-z]+/g, '.')}@example.net`,
      'Contact Phone': rnd() < 0.5 ? `+1 555 01${String(Math.floor(rnd() * 100)).padStart(2, '0')}` : null,
    };
  });
}

export function generateVocRows({ count, days, now, seed = 2, offsetMinutes = 60 }: GenerateOptions): ReportRow[] {
  const rnd = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const [category, subcategory, tertiary] = pick(rnd, CATEGORIES);
    const start = Math.floor(now - rnd() * days * 86_400_000);
    const [agentId, agentName] = pick(rnd, AGENTS);
    const customer = pick(rnd, CUSTOMERS);
    const csat = 1 + Math.floor(rnd() * 5);
    const sentiment = Math.round((rnd() * 2 - 1) * 100) / 100;
    return {
      ID: `voc-${String(i + 1).padStart(6, '0')}`,
      Datetime: isoWithOffset(start, offsetMinutes),
      Duration: 60 + Math.floor(rnd() * 1800),
      Direction: pick(rnd, ['inbound', 'outbound']),
      Media: pick(rnd, ['voice', 'video']),
      AgentName: agentName,
      AgentId: agentId,
      AgentEmail: `${agentId}@example.com`,
      CustomerName: customer,
      CustomerId: `cust-${1000 + Math.floor(rnd() * 9000)}`,
      CustomerEmail: `${customer.toLowerCase().replace(/[^a-z]+/g, '.')}@example.net`,
      Groups: pick(rnd, ['Tier 1', 'Tier 2', 'Billing team']),
      Tags: pick(rnd, ['vip', 'repeat', 'new-customer', '']),
      Category: category,
      Subcategory: subcategory,
      Tertiary: tertiary,
      CategoryExplanation: `The caller described ${tertiary.toLowerCase()}.`,
      CategoriesId: `${category}/${subcategory}/${tertiary}`.toLowerCase().replace(/\s+/g, '-'),
      Summary: `${customer} called about ${subcategory.toLowerCase()}; ${agentName} resolved it.`,
      CSat: csat,
      CSatExplanation: csat >= 4 ? 'The customer thanked the agent.' : 'The customer sounded frustrated.',
      Sentiment: sentiment,
      SentimentExplanation: sentiment >= 0 ? 'Calm, positive tone.' : 'Raised voice, interruptions.',
      Problems: rnd() < 0.4 ? [{ name: pick(rnd, PROBLEMS), severity: pick(rnd, ['low', 'medium', 'high']) }] : [],
      KPIs: [
        { name: 'First contact resolution', value: rnd() < 0.7 },
        { name: 'Hold time (s)', value: Math.floor(rnd() * 300) },
      ],
      SourceSystem: pick(rnd, ['genesys', 'twilio', 'five9']),
      TicketId: rnd() < 0.5 ? `T-${200000 + i}` : null,
      TicketUrl: null,
    };
  });
}
