import streamlit as st
st.title("CEP Studio")
