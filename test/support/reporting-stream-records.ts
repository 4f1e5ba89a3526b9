/**
 * DynamoDB stream records of the reporting table as Lambda delivers them (NEW_AND_OLD_IMAGES view:
 * a MODIFY carries the item before and after, a REMOVE the item before), built from items shaped
 * as the rows store writes them. Records without an old image stand for a stream that showed new
 * images only (before the view changed).
 */
import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';

/** What the rows store writes, so the stream records hold exactly that. */
export { type ReportingItem, reportingItem } from '#shared/store/reporting-rows-store';

import type { ReportingItem } from '#shared/store/reporting-rows-store';

type Item = ReportingItem | Record<string, SdkAttributeValue>;

/** The SDK's and aws-lambda's AttributeValue types describe the same wire format. */
function toStreamImage(item: Item): Record<string, AttributeValue> {
  const image =
    'pk' in item && typeof item.pk === 'string' ? marshall(item) : (item as Record<string, SdkAttributeValue>);
  return image as unknown as Record<string, AttributeValue>;
}

export interface RecordPosition {
  /** Decimal, as DynamoDB writes it (at least 21 digits). */
  sequenceNumber: string;
  /** ApproximateCreationDateTime: epoch seconds. */
  seconds: number;
}

/** A sequence number of `n`, written as DynamoDB does (21 digits or more). */
export function sequenceNumber(n: bigint | number, prefix = '4421584500000'): string {
  return `${prefix}${String(n).padStart(21 - prefix.length, '0')}`;
}

const base = (position: RecordPosition) => ({
  eventID: `event-${position.sequenceNumber}`,
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'eu-west-1',
  eventSourceARN: 'arn:aws:dynamodb:eu-west-1:123456789012:table/cxm-test-reporting/stream/2026-01-01T00:00:00.000',
});

/** An INSERT, or with `eventName: 'MODIFY'` an overwrite; `before` is the item it replaced. */
export function writeRecord(
  item: Item,
  position: RecordPosition,
  eventName: 'INSERT' | 'MODIFY' = 'INSERT',
  before?: Item,
): DynamoDBRecord {
  const image = toStreamImage(item);
  return {
    ...base(position),
    eventName,
    dynamodb: {
      ApproximateCreationDateTime: position.seconds,
      Keys: { pk: image.pk! },
      NewImage: image,
      ...(before && { OldImage: toStreamImage(before) }),
      SequenceNumber: position.sequenceNumber,
      SizeBytes: 512,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

/** The REMOVE of `item`; given only its key, the REMOVE of a stream that showed new images only. */
export function removeRecord(item: Item | string, position: RecordPosition): DynamoDBRecord {
  const image = typeof item === 'string' ? undefined : toStreamImage(item);
  return {
    ...base(position),
    eventName: 'REMOVE',
    dynamodb: {
      ApproximateCreationDateTime: position.seconds,
      Keys: { pk: image?.pk ?? { S: item as string } },
      ...(image && { OldImage: image }),
      SequenceNumber: position.sequenceNumber,
      SizeBytes: 64,
      StreamViewType: image ? 'NEW_AND_OLD_IMAGES' : 'NEW_IMAGE',
    },
  };
}
