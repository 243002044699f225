import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { theme } from './lib/theme.svelte';

import { app } from './lib/state.svelte';

theme.start();
// The first requests go out before the first render, which then overlaps their replies.
app.start();

const target = document.getElementById('app');
if (!target) throw new Error('missing #app');
export default mount(App, { target });
