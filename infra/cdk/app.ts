/**
 * CDK entry point (cdk.json `app`): `npx cdk synth -c stage=dev`. The stage picks the settings in
 * config.ts (the local stage's reporting backend may be given as `-c reportingBackend=...`); nothing here looks up an account or region, so synth works offline. cdk-nag's
 * AwsSolutions checks run at every synth: an unacknowledged finding fails `cdk synth` and `cdk deploy`.
 */
import { App } from 'aws-cdk-lib';
import { enforceNagChecks } from './nag-acknowledgements.ts';
import { CxmStack } from './stack.ts';
import { DEFAULT_STAGE, stageConfig, withReportingBackend } from './stage/config.ts';

const app = new App();
const stage: unknown = app.node.tryGetContext('stage') ?? DEFAULT_STAGE;
if (typeof stage !== 'string') throw new Error('context "stage" must be a string, e.g. -c stage=dev');
const config = withReportingBackend(stageConfig(stage), app.node.tryGetContext('reportingBackend'));
enforceNagChecks(new CxmStack(app, { config }));
app.synth();
