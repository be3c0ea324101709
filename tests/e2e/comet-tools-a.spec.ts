import { defineCometToolSuite } from './comet-tools.suite';

defineCometToolSuite('A');
