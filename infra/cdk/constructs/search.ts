/**
 * The reporting search domain: the OpenSearch version the local engine runs, encrypted at rest and between nodes,
 * HTTPS only (TLS 1.2+), reachable only by IAM principals granted here (SigV4), slow logs and
 * error logs to CloudWatch, sized per stage.
 */

import { EbsDeviceVolumeType } from 'aws-cdk-lib/aws-ec2';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Domain, EngineVersion, TLSSecurityPolicy } from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';
import { domainEngineVersion } from '#infra/opensearch-engine';
import { SEARCH_DOMAIN_ID } from '#infra/stage-names';
import { REPORT_KINDS } from '#shared/domain/reporting/report-cursor';
import { reportingIndexPrefix, reportingReadAlias, reportingTemplateName } from '#shared/store/opensearch-index-names';
import type { StageConfig } from '../stage/config.ts';

export class ReportingSearch extends Construct {
  readonly domain: Domain;
  /**
   * Names the reporting layout: year indexes `<prefix>-<kind>-<year>`, their templates
   * `<prefix>-<kind>` and read aliases `<prefix>-<kind>-read` (shared/store/opensearch-index-names.ts).
   */
  readonly indexPrefix: string;

  constructor(scope: Construct, id: string, config: StageConfig) {
    super(scope, id);
    const { search } = config;
    const logs = (name: string) =>
      new LogGroup(this, `${name}Logs`, {
        logGroupName: `/aws/opensearch/cxm-${config.stage}/${name.toLowerCase()}`,
        retention: config.logRetention,
        removalPolicy: config.removalPolicy,
      });
    this.indexPrefix = reportingIndexPrefix(config.stage);
    this.domain = new Domain(this, SEARCH_DOMAIN_ID, {
      // No domainName: OpenSearch allows 28 characters, too few for `cxm-<stage>-reporting` with a
      // 20-character stage. CloudFormation names it; functions learn the endpoint from their env.
      // The engine the local stack and the tests run (infra/opensearch-engine.ts).
      version: EngineVersion.openSearch(domainEngineVersion()),
      capacity: {
        dataNodeInstanceType: search.dataNodeInstanceType,
        dataNodes: search.dataNodes,
        multiAzWithStandbyEnabled: false,
      },
      zoneAwareness:
        search.availabilityZones > 1
          ? { enabled: true, availabilityZoneCount: search.availabilityZones as 2 | 3 }
          : { enabled: false },
      ebs: { volumeSize: search.volumeSizeGiB, volumeType: EbsDeviceVolumeType.GP3 },
      encryptionAtRest: { enabled: true },
      nodeToNodeEncryption: true,
      enforceHttps: true,
      tlsSecurityPolicy: TLSSecurityPolicy.TLS_1_2,
      logging: {
        slowSearchLogEnabled: true,
        slowSearchLogGroup: logs('SlowSearch'),
        slowIndexLogEnabled: true,
        slowIndexLogGroup: logs('SlowIndex'),
        appLogEnabled: true,
        appLogGroup: logs('App'),
      },
      removalPolicy: config.removalPolicy,
    });
  }

  /**
   * Search access for a list function: the client sends `POST <read alias>/_search` (a search
   * always has a body), which grantIndexRead (GET and HEAD only) would refuse; nothing else of the
   * domain is reachable.
   */
  grantSearch(grantee: IGrantable): void {
    Grant.addToPrincipal({
      grantee,
      actions: ['es:ESHttpPost'],
      resourceArns: [`${this.domain.domainArn}/${this.indexPrefix}-*/_search`],
    });
  }

  /**
   * Write access for the indexer, exactly what it sends: `POST _bulk` (writes into the year indexes,
   * which the first write creates from the templates; IAM authorizes a request by its path, so the
   * indexes named inside a bulk body need no grant of their own), `POST _index_template/<name>` of
   * its own two templates, by exact name, and `PUT <read alias>/_mapping` of its own two aliases
   * (the templates' new fields on the year indexes that exist).
   */
  grantIndexing(grantee: IGrantable): void {
    Grant.addToPrincipal({
      grantee,
      actions: ['es:ESHttpPost'],
      resourceArns: [
        '_bulk',
        ...REPORT_KINDS.map((kind) => `_index_template/${reportingTemplateName(this.indexPrefix, kind)}`),
      ].map((path) => `${this.domain.domainArn}/${path}`),
    });
    Grant.addToPrincipal({
      grantee,
      actions: ['es:ESHttpPut'],
      resourceArns: REPORT_KINDS.map(
        (kind) => `${this.domain.domainArn}/${reportingReadAlias(this.indexPrefix, kind)}/_mapping`,
      ),
    });
  }
}
