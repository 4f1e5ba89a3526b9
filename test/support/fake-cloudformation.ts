/**
 * CloudFormation's DescribeStacks, faked over real HTTP (nothing of AWS's can run here). The SDK is
 * pointed at it with AWS_ENDPOINT_URL_CLOUDFORMATION, so the code under test builds, signs and
 * parses the call exactly as it does against AWS: CloudFormation's query protocol, a form-encoded
 * POST answered with XML, and an absent stack answered 400 ValidationError as the service does.
 */
import { createServer } from 'node:http';

export interface FakeCloudFormation {
  endpoint: string;
  /** The StackName of every DescribeStacks call, in order. */
  calls: string[];
  close(): Promise<void>;
}

const NAMESPACE = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';
const escapeXml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** `stacks`: stack name -> its outputs (OutputKey -> OutputValue). */
export async function startFakeCloudFormation(
  stacks: Record<string, Record<string, string>>,
): Promise<FakeCloudFormation> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const errorXml = (code: string, message: string) =>
        `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>fake</RequestId></ErrorResponse>`;
      const reply = (status: number, xml: string) => {
        res.writeHead(status, { 'Content-Type': 'text/xml' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`);
      };
      if (form.get('Action') !== 'DescribeStacks') {
        return reply(400, errorXml('InvalidAction', 'the fake knows only DescribeStacks'));
      }
      const name = form.get('StackName') ?? '';
      calls.push(name);
      const outputs = stacks[name];
      if (!outputs) {
        return reply(400, errorXml('ValidationError', `Stack with id ${escapeXml(name)} does not exist`));
      }
      const members = Object.entries(outputs)
        .map(
          ([key, value]) =>
            `<member><OutputKey>${escapeXml(key)}</OutputKey><OutputValue>${escapeXml(value)}</OutputValue></member>`,
        )
        .join('');
      reply(
        200,
        `<DescribeStacksResponse xmlns="${NAMESPACE}"><DescribeStacksResult><Stacks><member>` +
          `<StackName>${escapeXml(name)}</StackName><StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${escapeXml(name)}/fake</StackId>` +
          `<CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>UPDATE_COMPLETE</StackStatus><Outputs>${members}</Outputs>` +
          `</member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
