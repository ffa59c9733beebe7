import { describePublicApi } from '../../../test/support/public-api.js';

describePublicApi(new URL('..', import.meta.url));
