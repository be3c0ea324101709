import { render } from 'preact';
import { App } from '../../components/App';
import { connectPanel } from '../../lib/panel/connection';
import '../../components/panel.css';

render(<App connection={connectPanel()} />, document.getElementById('app')!);
