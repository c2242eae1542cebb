export { EventFeed } from './event-feed';
export { streamEventsRoute } from './stream-events';
