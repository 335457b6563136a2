console.log('demo: coming');
