/** One Powertools logger per function. The key itself is never a log field; keyId is. */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: 'cxm-api' });
