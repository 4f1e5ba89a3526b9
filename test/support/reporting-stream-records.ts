/**
 * DynamoDB stream records of the reporting table as Lambda delivers them (NEW_IMAGE view: a
 * REMOVE carries only the keys), built from items shaped as the rows store writes them.
 */
import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';

/** What the rows store writes, so the stream records hold exactly that. */
export { reportingItem, type ReportingItem } from '#shared/store/reporting-rows-store';
import type { ReportingItem } from '#shared/store/reporting-rows-store';

/** The SDK's and aws-lambda's AttributeValue types describe the same wire format. */
function toStreamImage(image: Record<string, SdkAttributeValue>): Record<string, AttributeValue> {
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

export function writeRecord(
  item: ReportingItem | Record<string, SdkAttributeValue>,
  position: RecordPosition,
  eventName: 'INSERT' | 'MODIFY' = 'INSERT',
): DynamoDBRecord {
  const image = 'pk' in item && typeof item.pk === 'string' ? marshall(item) : (item as Record<string, SdkAttributeValue>);
  return {
    ...base(position),
    eventName,
    dynamodb: {
      ApproximateCreationDateTime: position.seconds,
      Keys: { pk: toStreamImage(image).pk! },
      NewImage: toStreamImage(image),
      SequenceNumber: position.sequenceNumber,
      SizeBytes: 512,
      StreamViewType: 'NEW_IMAGE',
    },
  };
}

export function removeRecord(pk: string, position: RecordPosition): DynamoDBRecord {
  return {
    ...base(position),
    eventName: 'REMOVE',
    dynamodb: {
      ApproximateCreationDateTime: position.seconds,
      Keys: { pk: { S: pk } },
      SequenceNumber: position.sequenceNumber,
      SizeBytes: 64,
      StreamViewType: 'NEW_IMAGE',
    },
  };
}
