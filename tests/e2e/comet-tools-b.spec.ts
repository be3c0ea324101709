import { defineCometToolSuite } from './comet-tools.suite';

defineCometToolSuite('B');
