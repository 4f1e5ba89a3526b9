/**
 * One stack per stage, `cxm-<stage>`: the tables (stateful) and the API (stateless, rebuilt from
 * the route table), the NoteCreated events, and what operators watch (alarms, dashboard).
 * Environment-agnostic on purpose: synth needs no account, region or credentials; `cdk deploy`
 * takes them from the caller's profile.
 */
import { Aws, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { API_URL_OUTPUT, SEARCH_CONSTRUCT_ID, SEARCH_ENDPOINT_OUTPUT, stackName } from '#infra/stage-names';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { Api } from './constructs/api.ts';
import { Data } from './constructs/data.ts';
import { ReportingIndexer } from './constructs/indexer.ts';
import { NoteEvents } from './constructs/note-events.ts';
import { Observability } from './constructs/observability.ts';
import { Recordings } from './constructs/recordings.ts';
import { ReportingSearch } from './constructs/search.ts';
import { Webhooks } from './constructs/webhooks.ts';
import type { StageConfig } from './stage/config.ts';

export interface CxmStackProps extends StackProps {
  config: StageConfig;
}

export class CxmStack extends Stack {
  readonly data: Data;
  readonly api: Api;
  readonly search?: ReportingSearch;
  readonly indexer?: ReportingIndexer;
  readonly noteEvents: NoteEvents;
  readonly recordings: Recordings;
  readonly webhooks: Webhooks;
  readonly observability: Observability;

  constructor(scope: Construct, props: CxmStackProps) {
    const { config, ...stackProps } = props;
    super(scope, stackName(config.stage), {
      description: `CXM API, stage ${config.stage}`,
      // No CDKMetadata resource: the template depends only on the code, not on the CDK version.
      analyticsReporting: false,
      // On every taggable resource, so cost and ownership can be filtered per stage.
      tags: { project: 'cxm-api', stage: config.stage },
      ...stackProps,
    });
    this.data = new Data(this, 'Data', config);
    if (config.reportingBackend === 'opensearch') {
      this.search = new ReportingSearch(this, SEARCH_CONSTRUCT_ID, config);
      this.indexer = new ReportingIndexer(this, 'Indexer', {
        config,
        table: this.data.tables.reporting,
        search: this.search,
      });
    }
    this.recordings = new Recordings(this, 'Recordings', { config, tables: this.data.tables });
    this.webhooks = new Webhooks(this, 'Webhooks', { config, tables: this.data.tables });
    this.api = new Api(this, 'Api', {
      config,
      tables: this.data.tables,
      search: this.search,
      recordings: this.recordings,
      webhooks: this.webhooks,
    });
    // The delivery function checks each attempt's target against the API's own host too.
    this.webhooks.delivery.addEnvironment(FUNCTION_ENV.apiHosts, this.api.apiHost);
    // It signs with the endpoints' secrets, which are sealed at rest.
    this.api.grantSecrets(this.webhooks.delivery, ['webhookSecretKey']);
    this.noteEvents = new NoteEvents(this, 'NoteEvents', { config, conversations: this.data.tables.conversations });
    this.observability = new Observability(this, 'Observability', {
      config,
      api: this.api,
      data: this.data,
      search: this.search,
      indexer: this.indexer,
      recordings: this.recordings,
      webhooks: this.webhooks,
    });
    new CfnOutput(this, 'RecordingsBucketName', {
      value: this.recordings.bucket.bucketName,
      description: 'S3 bucket of VOC recording uploads',
    });

    new CfnOutput(this, API_URL_OUTPUT, { value: this.api.restApi.url, description: 'Base URL of the API stage' });
    if (this.search)
      new CfnOutput(this, SEARCH_ENDPOINT_OUTPUT, {
        value: `https://${this.search.domain.domainEndpoint}`,
        description: 'URL of the reporting search domain (signed requests only)',
      });
    new CfnOutput(this, 'EventBusName', {
      value: this.noteEvents.bus.eventBusName,
      description: 'EventBridge bus carrying NoteCreated (source cxm.conversations)',
    });
    const dashboardName = this.observability.dashboard.dashboardName;
    new CfnOutput(this, 'DashboardName', { value: dashboardName, description: 'CloudWatch dashboard of the stage' });
    new CfnOutput(this, 'DashboardUrl', {
      value: `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards/dashboard/${dashboardName}`,
      description: 'The dashboard in the CloudWatch console',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.observability.alarmTopic.topicArn,
      description: 'SNS topic every alarm notifies: subscribe the on-call address to it',
    });
    for (const table of Object.values(this.data.tables)) {
      new CfnOutput(this, `${table.node.id}Name`, {
        value: table.tableName,
        description: `Physical name of the ${table.spec.id} table`,
      });
    }
  }
}
