// The widget's essential journeys (journeys.ts) in WebKit, Safari's engine.
import { journeysIn } from './journeys';

journeysIn('webkit');
