/** One Powertools logger per function. The key itself is never a log field; keyId is. */
import { Logger } from '@aws-lambda-powertools/logger';

// The deployed functions name the service through POWERTOOLS_SERVICE_NAME; this is the local default.
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'cxm-api' });
