/**
 * The transport-neutral service layer: every call a caller can make, taking Credentials and
 * returning plain results (with a payment receipt where one was taken). Errors are AppError
 * (shared/src/failures.ts classifies them) or the payment gate's PaymentRequiredError /
 * PaymentProblem. REST (http/routes), MCP and tRPC only map these to their wire.
 */
export type { Credentials } from './credentials.ts';
export type { Served } from './job-calls.ts';
export { bundleOfCandidates, type ClipsFromJobRequest, createBundleCall, payBundleCall } from './bundle-calls.ts';
export { checkoutOfferCall, createOfferingCheckout, type OpenedUploadJob, openUploadJobCall } from './checkout-offer.ts';
export {
  bindConsentRequestCall,
  finishConnectCall,
  listConnectionsCall,
  revokeConnectionCall,
  showConsentRequestCall,
  showRevokeLinkCall,
  startConnectCall,
  useRevokeLinkCall,
} from './connection-calls.ts';
export { jobEventsCall, type JobStreamEvent } from './event-calls.ts';
export { checkoutCall, completeUploadCall, createJobCall, getJobCall, listJobsCall, processCall, uploadUrlCall } from './job-calls.ts';
export { deleteOutputCall, deleteSourceCall, downloadCall } from './output-calls.ts';
export { createProductCall } from './product-calls.ts';
export { cardWebhookCall, checkoutLandingCall, smokeTestCall } from './payment-calls.ts';
export { createSessionCall, currentSessionCall } from './session-calls.ts';
// What the transports need to read the service's answers and errors (classes and types, no calls).
export { PaymentRequiredWithCheckout } from '../payments/checkout.ts';
export { PaymentRequiredError } from '../payments/gate.ts';
export type { BrowserNonces, ConsentBinding } from '../publishing/consent-requests.ts';
export type { ConnectionView } from '../publishing/connections.ts';
export { requirePublishing } from '../publishing/publishing-settings.ts';
export type { Billing } from '../payments/billing.ts';
export { mppDocument } from '../payments/discovery.ts';
export { typesByCreation } from '../job-types/registry.ts';
